import assert from "node:assert/strict";
import { once } from "node:events";
import net from "node:net";
import { PassThrough } from "node:stream";
import { test } from "node:test";
import { HttpError } from "../errors/index.ts";
import { AppendAdmission } from "./admission.ts";
import { guardBody } from "./body-guard.ts";

async function drain(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

const long = { idleMs: 60_000, totalMs: 60_000 };

test("passes the body through, taking its bytes as they come", async () => {
  const a = new AppendAdmission({ maxBytes: 100, clientMaxBytes: 100 });
  const source = new PassThrough();
  const ticket = a.body("x", 10);
  const guarded = guardBody(source, long, ticket);
  const read = drain(guarded);
  source.write("hello");
  source.end("world");
  assert.equal((await read).toString(), "helloworld");
  assert.equal(a.inflight, 10);
  ticket.release();
  assert.equal(a.inflight, 0);
});

test("a body that stalls is cut with 408 request_timeout and connection: close", async () => {
  const a = new AppendAdmission({ maxBytes: 100, clientMaxBytes: 100 });
  const source = new PassThrough();
  const guarded = guardBody(source, { idleMs: 30, totalMs: 60_000 }, a.body("x", 1000));
  source.write("a");
  await assert.rejects(drain(guarded), (e: unknown) => {
    assert.ok(e instanceof HttpError);
    assert.equal(e.status, 408);
    assert.equal(e.code, "request_timeout");
    assert.deepEqual(e.headers, { connection: "close" });
    assert.match(e.message, /no byte of the request body came for 30 ms/);
    return true;
  });
});

test("bytes that arrived while the event loop was stalled past the idle timeout are read, not cut", async (t) => {
  const server = net.createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const accepted = once(server, "connection");
  const client = net.connect((server.address() as net.AddressInfo).port, "127.0.0.1");
  t.after(() => {
    client.destroy();
    server.close();
  });
  const [socket] = (await accepted) as [net.Socket];
  t.after(() => socket.destroy());
  const guarded = guardBody(socket, { idleMs: 50, totalMs: 60_000 });
  const read = drain(guarded);
  client.write("a");
  await once(guarded, "readable");
  // The rest reaches the gateway's socket (loopback delivers in the write); then the loop stalls
  // past the idle timeout before it gets to read it.
  client.end("b");
  const until = Date.now() + 150;
  while (Date.now() < until);
  assert.equal((await read).toString(), "ab");
});

test("a body that keeps trickling is cut at the total timeout (any route: no admission)", async () => {
  const source = new PassThrough();
  const guarded = guardBody(source, { idleMs: 60_000, totalMs: 50 });
  const trickle = setInterval(() => source.write("a"), 5);
  try {
    await assert.rejects(drain(guarded), /did not arrive within 50 ms/);
  } finally {
    clearInterval(trickle);
  }
});

test("bytes past the budget fail the body with 429 and connection: close", async () => {
  const a = new AppendAdmission({ maxBytes: 10, clientMaxBytes: 10 });
  a.body("y", 5).take(5);
  const source = new PassThrough();
  const guarded = guardBody(source, long, a.body("x", 8));
  source.write("12345678");
  await assert.rejects(drain(guarded), (e: unknown) => {
    assert.ok(e instanceof HttpError);
    assert.equal(e.status, 429);
    assert.equal(e.headers?.connection, "close");
    assert.equal(e.headers?.["retry-after"], "1");
    return true;
  });
});
