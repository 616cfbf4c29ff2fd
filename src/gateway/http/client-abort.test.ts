import assert from "node:assert/strict";
import { once } from "node:events";
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { connect } from "node:net";
import { test } from "node:test";
import Fastify, { type FastifyReply } from "fastify";
import { waitFor } from "../../../test/harness/wait.ts";
import { clientAbortSignal, releaseClientAbort } from "./client-abort.ts";

/** A server whose `/hold` replies are kept open, each with its client signal. */
async function withServer(
  run: (port: number, held: { reply: FastifyReply; signal: AbortSignal }[]) => Promise<void>,
) {
  const app = Fastify();
  const held: { reply: FastifyReply; signal: AbortSignal }[] = [];
  app.get("/hold", (_req, reply) => {
    held.push({ reply, signal: clientAbortSignal(reply) });
    reply.hijack();
    reply.raw.writeHead(200, { "content-type": "text/plain" });
    reply.raw.write("open\n");
  });
  app.get("/done", (_req, reply) => {
    const signal = clientAbortSignal(reply);
    reply.raw.once("close", () => held.push({ reply, signal }));
    return "ok";
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  try {
    await run((app.server.address() as AddressInfo).port, held);
  } finally {
    await app.close();
  }
}

async function open(port: number, path: string) {
  const socket = connect(port, "127.0.0.1");
  let text = "";
  socket.setEncoding("latin1");
  socket.on("data", (chunk: string) => {
    text += chunk;
  });
  socket.write(`GET ${path} HTTP/1.1\r\nhost: x\r\n\r\n`);
  return { socket, text: () => text };
}

test("the signal aborts when the client goes before its response finished", async () => {
  await withServer(async (port, held) => {
    const c = await open(port, "/hold");
    await waitFor(() => held.length === 1 && c.text().includes("open"), { message: "held" });
    const { signal } = held[0] as { signal: AbortSignal };
    assert.equal(signal.aborted, false);
    c.socket.destroy();
    await waitFor(() => signal.aborted, { message: "aborted with the client gone" });
  });
});

test("a finished response does not abort its signal when it closes", async () => {
  await withServer(async (port, held) => {
    const c = await open(port, "/done");
    // The response closes on the server once written; the client reads it when it gets there.
    await waitFor(() => held.length === 1 && /\r\n\r\nok$/.test(c.text()), {
      message: "the response closed, and the client read it",
    });
    assert.equal((held[0] as { signal: AbortSignal }).signal.aborted, false);
    c.socket.destroy();
  });
});

test("a released signal is let go: the response's close no longer aborts it", async () => {
  await withServer(async (port, held) => {
    const c = await open(port, "/hold");
    await waitFor(() => held.length === 1, { message: "held" });
    const { reply, signal } = held[0] as { reply: FastifyReply; signal: AbortSignal };
    const before = reply.raw.listenerCount("close");
    releaseClientAbort(reply.raw);
    assert.equal(reply.raw.listenerCount("close"), before - 1);
    const closed = once(reply.raw, "close");
    c.socket.destroy();
    await closed;
    assert.equal(signal.aborted, false);
  });
});

/** An h2c server: `/hold` as above; `/late` takes its signal only once `go` is called. */
async function withH2Server(
  run: (
    session: http2.ClientHttp2Session,
    held: AbortSignal[],
    late: { arrived: Promise<{ go: () => void; stream: http2.ServerHttp2Stream }> },
  ) => Promise<void>,
) {
  const app = Fastify({ http2: true });
  const held: AbortSignal[] = [];
  let arrived: (it: { go: () => void; stream: http2.ServerHttp2Stream }) => void = () => {};
  const late = {
    arrived: new Promise<{ go: () => void; stream: http2.ServerHttp2Stream }>(
      (resolve) => (arrived = resolve),
    ),
  };
  app.get("/hold", (_req, reply) => {
    held.push(clientAbortSignal(reply as unknown as FastifyReply));
    reply.hijack();
    reply.raw.writeHead(200, { "content-type": "text/plain" });
    reply.raw.write("open\n");
  });
  app.get("/late", async (_req, reply) => {
    await new Promise<void>((go) => arrived({ go, stream: reply.raw.stream }));
    held.push(clientAbortSignal(reply as unknown as FastifyReply));
    reply.hijack();
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const session = http2.connect(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}`);
  session.on("error", () => {});
  try {
    await run(session, held, late);
  } finally {
    session.destroy();
    await app.close();
  }
}

test("over HTTP/2, a stream reset while its response is open aborts the signal", async () => {
  await withH2Server(async (session, held) => {
    const req = session.request({ ":path": "/hold" });
    req.on("error", () => {});
    await once(req, "data");
    assert.equal(held[0]?.aborted, false);
    req.close(http2.constants.NGHTTP2_CANCEL);
    await waitFor(() => held[0]?.aborted === true, { message: "aborted with the stream reset" });
  });
});

test("over HTTP/2, a stream reset before the route takes its signal gives an aborted one", async () => {
  await withH2Server(async (session, held, late) => {
    const req = session.request({ ":path": "/late" });
    req.on("error", () => {});
    const { go, stream } = await late.arrived;
    req.close(http2.constants.NGHTTP2_CANCEL);
    // The server's side of the stream closes; only then does the route go on.
    await waitFor(() => stream.closed, { message: "the server's stream closed" });
    go();
    await waitFor(() => held.length === 1, { message: "the route took its signal" });
    assert.equal(held[0]?.aborted, true);
  });
});
