// A unary answer (a read page, an ack) its client does not take is cut once `timeoutMs` has
// passed since the gateway wrote it: a client that stops reading (an HTTP/2 stream whose window
// it never opens, a socket it never drains) would otherwise hold the page and its buffers for
// as long as it keeps the connection, 100 streams a connection. The bound is the whole answer's,
// not nginx's between two writes: Node shows no progress within one write, which a page is.
// Sessions (SSE, NDJSON), which Fastify does not send, keep their own slow-consumer rule. One
// sweep a second checks them all.
// Answers to reads (GET) are bounded in bytes too, from when the route has the page in hand
// (`reply.expectPage`) until taken or cut (answer-budget.ts): a read of a client already at a
// bound is refused before it is carried out (a long-poll before it waits), a page that would
// pass one before it is written, and an answer that would pass one leaves as the read's 429
// instead, without what the route had said of the answer it replaces (its caching, its ETag,
// its offsets). Answers to
// writes are acks, and never refused: the write is done; nor are health checks and metrics
// (`config.alwaysAnswers`), which a balancer or a scraper must get whatever others leave unread.
import http2 from "node:http2";
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import type { StoredRecord } from "../../contract/codec/index.ts";
import { type AnswerBudget, type AnswerClaim, pageMemoryBytes } from "./answer-budget.ts";
import { clientKey } from "./client-key.ts";
import { responseBuffers } from "./response-buffers.ts";

declare module "fastify" {
  interface FastifyContextConfig {
    /** The route's answers are never refused for the unsent-answers budget (probes, metrics). */
    alwaysAnswers?: boolean;
  }
  interface FastifyReply {
    /**
     * A read's page is in hand: its memory counts against the budget until the answer is taken,
     * and a page that would pass a bound is the read's 429 before it is written.
     */
    expectPage(records: readonly StoredRecord[]): void;
  }
}

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

export interface UnsentAnswersOptions {
  timeoutMs: number;
  budget?: AnswerBudget;
}

/**
 * The memory an answer Fastify is about to send holds: a page's whole pooled buffer; streams
 * (the console's files) hold little.
 */
function answerBytes(payload: unknown): number {
  if (Buffer.isBuffer(payload)) return responseBuffers.heldBy(payload);
  return typeof payload === "string" ? payload.length : 0;
}

export const unsentAnswersPlugin = fp(async (app: FastifyInstance, opts: UnsentAnswersOptions) => {
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
  // Each read's claim on the budget, and the headers it has before its route runs (CORS's, a
  // drain's): a refused answer keeps only these.
  const reads = new WeakMap<object, { claim: AnswerClaim; kept: Set<string> }>();
  const { budget } = opts;
  app.decorateReply("expectPage", function (this: { raw: Cuttable }, records) {
    reads.get(this.raw)?.claim.set(pageMemoryBytes(records));
  });
  if (budget) {
    app.addHook("preHandler", async (req, reply) => {
      if (req.method !== "GET" || req.routeOptions.config?.alwaysAnswers) return;
      const client = clientKey(req);
      budget.admit(client);
      const claim = budget.claim(client);
      reads.set(reply.raw, { claim, kept: new Set(Object.keys(reply.getHeaders())) });
      // Whatever it comes to count, the claim ends with its response, however that ends.
      reply.raw.once("close", () => claim.release());
    });
  }
  app.addHook("onSend", async (_req, reply, payload) => {
    const res = reply.raw as Cuttable;
    if (sending.has(res)) return;
    const read = reads.get(reply.raw);
    if (read) {
      const bytes = answerBytes(payload);
      if (reply.statusCode >= 400 || bytes === 0) read.claim.release();
      else {
        try {
          read.claim.set(bytes);
        } catch (err) {
          for (const name of Object.keys(reply.getHeaders())) {
            if (!read.kept.has(name) && name !== "connection") reply.removeHeader(name);
          }
          throw err;
        }
      }
    }
    sending.set(res, performance.now() + opts.timeoutMs);
    // Sent, or gone: either way nothing is left to cut.
    res.once("close", () => sending.delete(res));
  });
});
