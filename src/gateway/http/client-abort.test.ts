import assert from "node:assert/strict";
import { once } from "node:events";
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
