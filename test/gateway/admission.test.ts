// Append admission against squatters, over real sockets: uploads that declare 64 MiB and then
// send nothing hold no budget and are cut with 408; one client cannot hold the budget another
// needs; one-record appends go through beside them all.
import assert from "node:assert/strict";
import http2 from "node:http2";
import { after, before, test } from "node:test";
import { request } from "undici";
import { APPEND_MEMORY_FACTOR } from "../../src/gateway/http/index.ts";
import type { Gateway } from "../harness/gateway.ts";
import { append, http, newStream } from "../harness/http.ts";
import { metric } from "../harness/metrics.ts";
import { openRaw, readAnswers } from "../harness/raw-socket.ts";
import { type Stack, startStack } from "../harness/stack.ts";
import { waitFor } from "../harness/wait.ts";

let stack: Stack<Gateway>;
let gw: Gateway;

before(async () => {
  stack = await startStack("nova-admission-", {
    gateway: {
      checkResponses: true,
      bodyLimit: 150 * 1024 * 1024,
      // Memory: bodies of 8 MiB in flight, 2 MiB of one client (APPEND_MEMORY_FACTOR is 4).
      inflightAppendBytes: 32 * 1024 * 1024,
      inflightAppendClientBytes: 8 * 1024 * 1024,
      bodyTimeouts: { idleMs: 1500, totalMs: 20_000 },
    },
  });
  gw = stack.gw;
});
after(() => stack?.close());

/** A raw connection that sends a POST's headers (and `body`), then keeps quiet. */
async function stalledUpload(path: string, declared: number, body = "", token?: string) {
  const c = await openRaw(gw.base);
  c.socket.write(
    `POST ${path}/records HTTP/1.1\r\nhost: ${new URL(gw.base).host}\r\ncontent-type: application/json\r\n` +
      `content-length: ${declared}\r\n${token ? `authorization: Bearer ${token}\r\n` : ""}\r\n${body}`,
  );
  return { socket: c.socket, closed: c.closed, answer: c.text };
}

test("ten stalled 64 MiB uploads hold no budget: one-record appends answer 200, and the uploads are cut with 408", async () => {
  const stream = await newStream(gw.base);
  const uploads = await Promise.all(
    Array.from({ length: 10 }, () => stalledUpload(stream, 64 * 1024 * 1024)),
  );
  try {
    for (let i = 0; i < 20; i++) await append(gw.base, stream, [`r${i}`]);
    for (const u of uploads) {
      await u.closed;
      const text = u.answer();
      assert.match(text, /^HTTP\/1\.1 408 /);
      assert.match(text, /\r\nconnection: close\r\n/i);
      const body = JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4));
      assert.equal(body.code, "request_timeout");
      assert.equal(body.retryable, true);
      assert.match(body.message, /no byte of the request body came for 1500 ms/);
    }
    const tail = await http(gw.base, "GET", `${stream}/records/tail`);
    assert.equal(tail.json.tail.seq_num, 20, "only the one-record appends landed");
  } finally {
    for (const u of uploads) u.socket.destroy();
  }
});

test("one client cannot hold more than its share: its next body is 429 while another client appends", async () => {
  const stream = await newStream(gw.base);
  const mib = "x".repeat(1024 * 1024);
  // Client A sends 1.5 MiB of each of two 3 MiB bodies and stalls: the second passes its share.
  const first = await stalledUpload(stream, 3 * 1024 * 1024, mib + mib.slice(0, 512 * 1024), "A");
  // A byte now and then keeps the first body from the idle cut (it keeps its budget while the
  // second is judged), however long a loaded machine takes.
  const trickle = setInterval(() => first.socket.write("x"), 200);
  // The gateway holds all of it before the second comes, or the first could be the one refused.
  await waitFor(
    async () =>
      (await metric(gw.base, "nova_gateway_memory_held_bytes", 'part="append_bodies"')) >=
      1.5 * 1024 * 1024 * APPEND_MEMORY_FACTOR,
    { timeoutMs: 10_000, message: "the first body's 1.5 MiB held" },
  );
  assert.equal(first.answer(), "");
  const second = await stalledUpload(stream, 3 * 1024 * 1024, mib + mib.slice(0, 512 * 1024), "A");
  try {
    await second.closed;
    const text = second.answer();
    assert.match(text, /^HTTP\/1\.1 429 /);
    assert.match(text, /\r\nconnection: close\r\n/i);
    const body = JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4));
    assert.equal(body.code, "resource_exhausted");
    assert.match(
      body.message,
      /this client has \d+ bytes of append bodies in flight \(at most 2097152,/,
    );
    // Client B (another credential) is not held back by A.
    const res = await request(`${gw.base}${stream}/records`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer B" },
      body: JSON.stringify({ records: [{ body: "b" }] }),
    });
    assert.equal(res.statusCode, 200, await res.body.text());
  } finally {
    clearInterval(trickle);
    first.socket.destroy();
    second.socket.destroy();
  }
  const tail = await http(gw.base, "GET", `${stream}/records/tail`);
  assert.equal(tail.json.tail.seq_num, 1);
});

test("a body of tiny JSON values is charged for its parse: past its client's share, 429 and nothing appended", async () => {
  const stream = await newStream(gw.base);
  // 10,000 records of 10 headers each: 1 MB of body (4 MiB counted by its size, under the
  // client's 8 MiB), but 320,000 values parsed, about 15 MB.
  const headers = Array.from({ length: 10 }, () => ["a", ""]);
  const dense = JSON.stringify({ records: Array.from({ length: 10_000 }, () => ({ headers })) });
  const post = () =>
    request(`${gw.base}${stream}/records`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer D" },
      body: dense,
    });
  // Another body of the same client in flight: the dense one is not alone.
  const first = await stalledUpload(stream, 64 * 1024, "{", "D");
  const trickle = setInterval(() => first.socket.write(" "), 200);
  try {
    await waitFor(
      async () =>
        (await metric(gw.base, "nova_gateway_memory_held_bytes", 'part="append_bodies"')) > 0,
      { timeoutMs: 10_000, message: "the first body held" },
    );
    const refused = await post();
    const body = (await refused.body.json()) as { code: string; message: string };
    assert.equal(refused.statusCode, 429, JSON.stringify(body));
    assert.equal(body.code, "resource_exhausted");
    assert.match(body.message, /this client has \d+ bytes of append bodies in flight/);
  } finally {
    clearInterval(trickle);
    first.socket.destroy();
  }
  let tail = await http(gw.base, "GET", `${stream}/records/tail`);
  assert.equal(tail.json.tail.seq_num, 0, "nothing of the refused body was appended");
  // Alone, the same body goes: its parse is its client's only one.
  await waitFor(
    async () =>
      (await metric(gw.base, "nova_gateway_memory_held_bytes", 'part="append_bodies"')) === 0,
    { timeoutMs: 10_000, message: "the stalled body gone" },
  );
  const alone = await post();
  assert.equal(alone.statusCode, 200, await alone.body.text());
  tail = await http(gw.base, "GET", `${stream}/records/tail`);
  assert.equal(tail.json.tail.seq_num, 10_000);
});

test("an NDJSON session's lines count against its client's share as bodies do", async () => {
  const stream = await newStream(gw.base);
  const mib = "x".repeat(1024 * 1024);
  // Client A holds 1.5 MiB of a stalled body, under its 2 MiB share.
  const held = await stalledUpload(stream, 3 * 1024 * 1024, mib + mib.slice(0, 512 * 1024), "A");
  const trickle = setInterval(() => held.socket.write("x"), 200);
  const line = `${JSON.stringify({ records: [{ body: mib.slice(0, 1000 * 1024) }] })}\n`;
  const session = (token: string) =>
    request(`${gw.base}${stream}/records`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/x-ndjson" },
      body: line,
    }).then(async (res) => ({ status: res.statusCode, text: await res.body.text() }));
  try {
    await waitFor(
      async () =>
        (await metric(gw.base, "nova_gateway_memory_held_bytes", 'part="append_bodies"')) >=
        1.5 * 1024 * 1024 * APPEND_MEMORY_FACTOR,
      { timeoutMs: 10_000, message: "the stalled body's 1.5 MiB held" },
    );
    // A's session line would take A past its share: refused, nothing appended.
    const refusedA = await session("A");
    assert.match(refusedA.text, /resource_exhausted/);
    assert.match(refusedA.text, /this client has \d+ bytes of append bodies in flight/);
    // Client B's same line is admitted.
    const admittedB = await session("B");
    assert.equal(admittedB.status, 200, admittedB.text);
    assert.match(admittedB.text, /"seq_num":0/);
  } finally {
    clearInterval(trickle);
    held.socket.destroy();
  }
  const tail = await http(gw.base, "GET", `${stream}/records/tail`);
  assert.equal(tail.json.tail.seq_num, 1);
});

test("a small body past its client's share, come whole, is 429 and its connection serves the next request", async () => {
  const stream = await newStream(gw.base);
  const host = new URL(gw.base).host;
  // Client C holds all but 4 KiB of its 2 MiB share with a stalled upload.
  const held = 2 * 1024 * 1024 - 4096;
  const first = await stalledUpload(stream, 3 * 1024 * 1024, "x".repeat(held), "C");
  const trickle = setInterval(() => first.socket.write("x"), 200);
  await waitFor(
    async () =>
      (await metric(gw.base, "nova_gateway_memory_held_bytes", 'part="append_bodies"')) >=
      held * APPEND_MEMORY_FACTOR,
    { timeoutMs: 10_000, message: "the stalled body's bytes held" },
  );
  const c = await openRaw(gw.base);
  try {
    const body = JSON.stringify({ records: [{ body: "y".repeat(8000) }] });
    // Head and body in one write: the body is whole when the gateway reads the head.
    c.socket.write(
      `POST ${stream}/records HTTP/1.1\r\nhost: ${host}\r\ncontent-type: application/json\r\n` +
        `content-length: ${body.length}\r\nauthorization: Bearer C\r\n\r\n${body}`,
    );
    await waitFor(() => readAnswers(c.text(), ["POST"]).answers.length === 1, {
      timeoutMs: 10_000,
      message: "the append's answer",
    });
    const [refused] = readAnswers(c.text(), ["POST"]).answers;
    assert.equal(refused?.status, 429);
    assert.notEqual(refused?.headers.connection, "close");
    assert.equal(JSON.parse(refused?.body ?? "").code, "resource_exhausted");
    c.socket.write(`GET ${stream}/records/tail HTTP/1.1\r\nhost: ${host}\r\n\r\n`);
    await waitFor(() => readAnswers(c.text(), ["POST", "GET"]).answers.length === 2, {
      timeoutMs: 10_000,
      message: "the next request's answer on the same connection",
    });
    const [, tail] = readAnswers(c.text(), ["POST", "GET"]).answers;
    assert.equal(tail?.status, 200);
    assert.equal(JSON.parse(tail?.body ?? "").tail.seq_num, 0, "the refused body left nothing");
  } finally {
    clearInterval(trickle);
    first.socket.destroy();
    c.socket.destroy();
  }
});

test("a stalled body on any other route is cut with 408 too", async () => {
  const c = await openRaw(gw.base);
  c.socket.write(
    `POST /v1/buckets HTTP/1.1\r\nhost: ${new URL(gw.base).host}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"na`,
  );
  await c.closed;
  const text = c.text();
  assert.match(text, /^HTTP\/1\.1 408 /);
  assert.match(text, /\r\nconnection: close\r\n/i);
  assert.equal(JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4)).code, "request_timeout");
});

test("a stalled HTTP/2 body that gives no length is cut with 408 too", async () => {
  const stream = await newStream(gw.base);
  const session = http2.connect(gw.base);
  try {
    // HTTP/2 has no transfer-encoding: a streamed body says nothing of itself in its headers.
    const req = session.request({
      ":method": "POST",
      ":path": `${stream}/records`,
      "content-type": "application/json",
    });
    req.write('{"records": [');
    const status = await Promise.race([
      new Promise<number>((resolve) => req.once("response", (h) => resolve(Number(h[":status"])))),
      new Promise<"none">((resolve) => setTimeout(() => resolve("none"), 10_000).unref()),
    ]);
    assert.equal(status, 408);
    req.destroy();
  } finally {
    session.destroy();
  }
});

test("a stalled Durable Streams write cannot pass for an NDJSON session", async () => {
  const c = await openRaw(gw.base);
  c.socket.write(
    `PUT /ds/v1/stream/ndjson-stall HTTP/1.1\r\nhost: ${new URL(gw.base).host}\r\ncontent-type: application/x-ndjson\r\ncontent-length: 100\r\n\r\n{"a"`,
  );
  // Bounded: without its timeouts such a body would hold the connection for good.
  const timer = setTimeout(() => c.socket.destroy(), 10_000);
  await c.closed;
  clearTimeout(timer);
  const text = c.text();
  assert.match(text, /^HTTP\/1\.1 408 /);
  assert.match(text, /\r\nconnection: close\r\n/i);
});

test("an s2s body over HTTP/1.1, where no session serves it, is guarded like any other", async () => {
  const c = await openRaw(gw.base);
  c.socket.write(
    `POST /v1/streams/s/records HTTP/1.1\r\nhost: ${new URL(gw.base).host}\r\ns2-basin: any-basin\r\ncontent-type: s2s/proto\r\ncontent-length: 100\r\n\r\nab`,
  );
  const timer = setTimeout(() => c.socket.destroy(), 10_000);
  await c.closed;
  clearTimeout(timer);
  const text = c.text();
  assert.match(text, /^HTTP\/1\.1 (408|501) /);
  assert.match(text, /\r\nconnection: close\r\n/i);
});
