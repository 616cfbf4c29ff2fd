// Node's own refusals over raw sockets, before any route: slow headers, headers over Node's size
// limit, and bytes that are not HTTP/1.1 get the contract's error body, and the connection closes.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Gateway } from "../harness/gateway.ts";
import { append, newStream } from "../harness/http.ts";
import { openRaw, parseAnswer, readAnswers } from "../harness/raw-socket.ts";
import { type Stack, startStack } from "../harness/stack.ts";

let stack: Stack<Gateway>;
let gw: Gateway;

before(async () => {
  stack = await startStack("nova-client-errors-", { gateway: { headersTimeoutMs: 700 } });
  gw = stack.gw;
});
after(() => stack?.close());

/** Sends `bytes` on a new connection; the whole answer once the gateway closes it. */
async function raw(
  bytes: string,
): Promise<{ status: number; head: string; body: Record<string, unknown> }> {
  const c = await openRaw(gw.base);
  c.socket.write(bytes);
  await c.closed;
  const text = c.text();
  assert.ok(text.indexOf("\r\n\r\n") > 0, `an answer came: ${JSON.stringify(text)}`);
  return parseAnswer(text);
}

test("headers that do not all arrive in time get 408 request_timeout and the connection closes", async () => {
  const res = await raw(`POST /v1/buckets HTTP/1.1\r\nhost: x\r\ncontent-type: applic`);
  assert.equal(res.status, 408);
  assert.match(res.head, /\r\nconnection: close/i);
  assert.deepEqual(res.body, {
    code: "request_timeout",
    message: "the request's headers did not arrive within 700 ms",
    retryable: true,
  });
});

test("a connection that sends nothing, or part of the HTTP/2 preface, gets 408 too", async () => {
  for (const bytes of ["", "PRI * HTTP/2.0\r\n"]) {
    const res = await raw(bytes);
    assert.equal(res.status, 408, JSON.stringify(bytes));
    assert.equal(res.body.code, "request_timeout");
    assert.match(res.head, /\r\nconnection: close/i);
  }
});

test("headers over Node's size limit get 431 header_too_large", async () => {
  const res = await raw(`GET /livez HTTP/1.1\r\nhost: x\r\nx-big: ${"a".repeat(20_000)}\r\n\r\n`);
  assert.equal(res.status, 431);
  assert.equal(res.body.code, "header_too_large");
  assert.equal(res.body.retryable, false);
  assert.match(String(res.body.message), /over 16384 bytes/);
});

test("bytes that are not HTTP/1.1 get 400 bad_request, and change nothing", async () => {
  const stream = await newStream(gw.base);
  for (const bytes of [
    "GARBAGE\r\n\r\n",
    `POST ${stream}/records HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\ncontent-type: application/json\r\n\r\nZZ\r\n{}\r\n0\r\n\r\n`,
    "GET / HTTP/9.9\r\n\r\n",
    "GET /livez HTTP/1.1\r\nbad header line\r\n\r\n",
  ]) {
    const res = await raw(bytes);
    assert.equal(res.status, 400, bytes);
    assert.equal(res.body.code, "bad_request");
    assert.equal(res.body.retryable, false);
    assert.match(
      String(res.body.message),
      /not valid HTTP\/1\.1, nor does it open with the HTTP\/2 preface \(HPE_/,
    );
    assert.match(res.head, /\r\nconnection: close/i);
  }
  const ack = await append(gw.base, stream, ["only"]);
  assert.equal(ack.start.seq_num, 0, "none of them appended");
});

/** Writes `requests` on one kept-alive connection; the bytes that come back within the wait. */
async function onOneConnection(requests: string[], until: RegExp): Promise<string> {
  const c = await openRaw(gw.base);
  const done = new Promise<void>((resolve) => {
    c.socket.on("data", () => {
      if (until.test(c.text())) resolve();
    });
    void c.closed.then(() => resolve());
  });
  for (const r of requests) c.socket.write(r);
  const timer = setTimeout(() => c.socket.destroy(), 10_000);
  await done;
  clearTimeout(timer);
  c.socket.destroy();
  return c.text();
}

test("HEAD on the records route answers like the GET without a body and opens no session: the connection serves the next request", async () => {
  const stream = await newStream(gw.base);
  await append(gw.base, stream, ["a"]);
  const host = new URL(gw.base).host;
  for (const head of [
    `HEAD ${stream}/records HTTP/1.1\r\nhost: ${host}\r\naccept: text/event-stream\r\n\r\n`,
    `HEAD ${stream}/records?seq_num=1&wait=20 HTTP/1.1\r\nhost: ${host}\r\n\r\n`,
  ]) {
    const text = await onOneConnection(
      [head, `GET ${stream}/records/tail HTTP/1.1\r\nhost: ${host}\r\n\r\n`],
      /"tail":\{"seq_num":1/,
    );
    const [first, ...rest] = text.split(/(?=HTTP\/1\.1 )/);
    assert.match(first ?? "", /^HTTP\/1\.1 200 /, head);
    assert.ok(first?.endsWith("\r\n\r\n"), `no body after the head: ${JSON.stringify(first)}`);
    assert.match(
      rest.join(""),
      /^HTTP\/1\.1 200 [\s\S]*"tail":\{"seq_num":1/,
      "the next request was answered",
    );
  }
  const missing = await onOneConnection(
    [
      `HEAD /v1/buckets/nope-bucket/streams/s/records HTTP/1.1\r\nhost: ${host}\r\naccept: text/event-stream\r\n\r\n`,
    ],
    /\r\n\r\n/,
  );
  assert.match(missing, /^HTTP\/1\.1 404 /);
});

test("a malformed request pipelined behind valid ones is refused after they are answered, never in their place", async () => {
  const stream = await newStream(gw.base);
  const host = new URL(gw.base).host;
  const body = JSON.stringify({ records: [{ body: "kept" }] });
  const c = await openRaw(gw.base);
  c.socket.write(
    `POST ${stream}/records HTTP/1.1\r\nhost: ${host}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}` +
      `GET /livez HTTP/1.1\r\nhost: ${host}\r\n\r\n` +
      `GET /${"a".repeat(20_000)} HTTP/1.1\r\nhost: ${host}\r\n\r\n`,
  );
  await c.closed;
  const { answers } = readAnswers(c.text(), ["POST", "GET", "GET"], true);
  assert.deepEqual(
    answers.map((a) => a.status),
    [200, 200, 431],
  );
  assert.equal(JSON.parse(answers[0]?.body ?? "").end.seq_num, 1);
  assert.equal(JSON.parse(answers[2]?.body ?? "").code, "header_too_large");
  assert.match(answers[2]?.head ?? "", /\r\nconnection: close/i);
});

test("a request pipelined behind an answer that closes the connection is not carried out", async () => {
  const stream = await newStream(gw.base);
  const host = new URL(gw.base).host;
  const body = JSON.stringify({ records: [{ body: "never" }] });
  const c = await openRaw(gw.base);
  c.socket.write(
    `POST ${stream}/records HTTP/1.1\r\nhost: ${host}\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\nno` +
      `POST ${stream}/records HTTP/1.1\r\nhost: ${host}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
  );
  await c.closed;
  const { answers } = readAnswers(c.text(), ["POST", "POST"], true);
  assert.deepEqual(
    answers.map((a) => [a.status, a.headers.connection]),
    [[400, "close"]],
  );
  // Were the second append carried out unanswered, it would have landed by the time a later
  // append on another connection is acked: appends to a stream are ordered.
  const ack = await append(gw.base, stream, ["after"]);
  assert.equal(ack.start.seq_num, 0);
});
