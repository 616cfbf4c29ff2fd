// A unary answer (a read page, an ack) its client does not take is cut once `timeoutMs` has
// passed since the gateway wrote it: a client that stops reading (an HTTP/2 stream whose window
// it never opens, a socket it never drains) would otherwise hold the page and its buffers for
// as long as it keeps the connection, 100 streams a connection. The bound is the whole answer's,
// not nginx's between two writes: Node shows no progress within one write, which a page is.
// Sessions (SSE, NDJSON), which Fastify does not send, keep their own slow-consumer rule. One
// sweep a second checks them all.
import http2 from "node:http2";
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";

const SWEEP_MS = 1000;

interface Cuttable {
  destroy(): unknown;
  once(event: "close", listener: () => void): unknown;
  /** An HTTP/2 answer's stream. */
  stream?: { close(code: number): void };
}

/**
 * HTTP/2: the stream alone, reset as cancelled (a reset without an error would read as a
 * whole, empty body); HTTP/1.1: the connection, which its client no longer reads anyway.
 */
function cut(res: Cuttable): void {
  if (res.stream) res.stream.close(http2.constants.NGHTTP2_CANCEL);
  else res.destroy();
}

export const sendTimeoutPlugin = fp(async (app: FastifyInstance, opts: { timeoutMs: number }) => {
  const sending = new Map<Cuttable, number>();
  const sweep = setInterval(() => {
    const now = performance.now();
    for (const [res, deadline] of sending) {
      if (now < deadline) continue;
      sending.delete(res);
      cut(res);
    }
  }, SWEEP_MS).unref();
  app.addHook("onClose", async () => clearInterval(sweep));
  app.addHook("onSend", async (_req, reply) => {
    const res = reply.raw as Cuttable;
    if (sending.has(res)) return;
    sending.set(res, performance.now() + opts.timeoutMs);
    // Sent, or gone: either way nothing is left to cut.
    res.once("close", () => sending.delete(res));
  });
});
