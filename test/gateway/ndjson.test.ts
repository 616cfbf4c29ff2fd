// NDJSON append sessions over a real socket, through the real fleet client, into one upstream
// AppendSession on a real star process.
import assert from "node:assert/strict";
import { Readable } from "node:stream";
import { after, before, test } from "node:test";
import { request } from "undici";
import type { Gateway } from "../harness/gateway.ts";
import { append, http, newStream } from "../harness/http.ts";
import { metric } from "../harness/metrics.ts";
import { type Stack, startStack } from "../harness/stack.ts";
import { waitFor } from "../harness/wait.ts";

const SESSION_LIMIT = 1024 * 1024;
const LINE_LIMIT = 64 * 1024;

let stack: Stack<Gateway>;
let gw: Gateway;

before(async () => {
  stack = await startStack("nova-ndjson-", {
    // A wide window lets the star commit many small batches per object-store write.
    starArgs: ["--session-window", "1024"],
    gateway: { bodyLimit: LINE_LIMIT, ndjsonSessionBytes: SESSION_LIMIT },
  });
  gw = stack.gw;
});
after(() => stack?.close());

/** Streams `lines` as one NDJSON request body; returns the status and the parsed answer lines. */
async function session(path: string, lines: Iterable<string> | AsyncIterable<string>, query = "") {
  const res = await request(`${gw.base}${path}/records${query}`, {
    method: "POST",
    headers: { "content-type": "application/x-ndjson" },
    body: Readable.from(lines),
  });
  const text = await res.body.text();
  const out = text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l));
  return { status: res.statusCode, headers: res.headers, text, lines: out };
}

const line = (bodies: string[], extra: Record<string, unknown> = {}) =>
  `${JSON.stringify({ records: bodies.map((body) => ({ body })), ...extra })}\n`;

async function tail(path: string): Promise<number> {
  return (await http(gw.base, "GET", `${path}/records/tail`)).json.tail.seq_num;
}

test("a session of 10,000 batches acks them all, in order", async () => {
  const s = await newStream(gw.base);
  const n = 10_000;
  function* lines() {
    for (let i = 0; i < n; i++) yield line([`r${i}`]);
  }
  const res = await session(s, lines());
  assert.equal(res.status, 200);
  assert.equal(res.headers["content-type"], "application/x-ndjson");
  assert.equal(res.lines.length, n + 1);
  for (let i = 0; i < n; i++) {
    const ack = res.lines[i];
    assert.equal(ack.start.seq_num, i, `ack ${i}: ${JSON.stringify(ack)}`);
    assert.equal(ack.end.seq_num, i + 1);
  }
  assert.deepEqual(res.lines[n], { end: { reason: "done", batches: n } });
  assert.equal(await tail(s), n);
  const read = await http(gw.base, "GET", `${s}/records?seq_num=9998`);
  assert.deepEqual(
    read.json.records.map((r: { body: string }) => r.body),
    ["r9998", "r9999"],
  );
  assert.equal(await metric(gw.base, "nova_gateway_sessions", 'kind="ndjson"'), 0);
});

test("a match miss is that batch's error line, naming it, and the session goes on", async () => {
  const s = await newStream(gw.base);
  const res = await session(s, [
    line(["a"], { match_seq_num: 0 }),
    "\n",
    line(["b"], { match_seq_num: 0 }),
    line(["c", "d"], { match_seq_num: 1 }),
    line(["e"]),
  ]);
  assert.equal(res.status, 200);
  assert.deepEqual(
    res.lines.map((l) => l.start?.seq_num ?? l.code),
    [0, "seq_num_mismatch", 1, 3, undefined],
  );
  assert.deepEqual(res.lines[1], {
    code: "seq_num_mismatch",
    message: "match_seq_num does not match the tail: the next seq_num is 1",
    retryable: false,
    expected_seq_num: 1,
    line: 3,
  });
  assert.deepEqual(res.lines.at(-1), { end: { reason: "done", batches: 4 } });
  assert.equal(await tail(s), 4);
});

test("a line that does not parse ends the session after the lines before it are acked", async () => {
  const s = await newStream(gw.base);
  const res = await session(s, [line(["a"]), line(["b"]), "{not json\n", line(["never"])]);
  assert.equal(res.status, 200);
  assert.equal(res.lines.length, 4);
  assert.deepEqual([res.lines[0].start.seq_num, res.lines[1].start.seq_num], [0, 1]);
  assert.equal(res.lines[2].code, "bad_json");
  assert.equal(res.lines[2].line, 3);
  assert.deepEqual(res.lines[3], { end: { reason: "error", batches: 3 } });
  assert.equal(await tail(s), 2, "nothing after the bad line was appended");

  const invalid = await session(s, [line(["c"]), `${JSON.stringify({ records: [] })}\n`]);
  assert.equal(invalid.lines[1].code, "invalid_argument");
  assert.equal(invalid.lines[1].line, 2);
  assert.match(invalid.lines[1].message, /records/);
  const b64 = await session(s, [line(["!!"])], "?format=base64");
  assert.equal(b64.lines[0].code, "bad_base64");
  assert.deepEqual(b64.lines[1], { end: { reason: "error", batches: 1 } });
});

test("a line that breaks the AppendInput schema gets the error a unary body would get", async () => {
  const s = await newStream(gw.base);
  const bad = [
    { records: [] },
    { records: [{ body: "x", colour: "red" }] },
    { records: [{ body: 7 }] },
    { records: [{ body: "x", headers: [{ name: "a" }] }] },
    { records: [{ body: "x" }], match_seq_num: -1 },
    { records: [{ body: "x" }], extra: true },
    ["not", "an", "object"],
  ];
  for (const body of bad) {
    const unary = await http(gw.base, "POST", `${s}/records`, body);
    assert.equal(unary.status, 400, unary.text);
    const res = await session(s, [`${JSON.stringify(body)}\n`]);
    const { line, ...lineError } = res.lines[0];
    assert.equal(line, 1);
    assert.deepEqual(lineError, unary.json, JSON.stringify(body));
    assert.deepEqual(res.lines[1], { end: { reason: "error", batches: 1 } });
  }
  assert.equal(await tail(s), 0, "nothing was appended");
});

test("byte limits per line and per session are enforced as the body streams", async () => {
  const s = await newStream(gw.base);
  const long = line(["x".repeat(LINE_LIMIT)]);
  const res = await session(s, [line(["ok"]), long, line(["never"])]);
  assert.deepEqual(
    res.lines.map((l) => l.start?.seq_num ?? l.code ?? l.end?.reason),
    [0, "payload_too_large", "error"],
  );
  assert.equal(res.lines[1].line, 2);
  assert.match(res.lines[1].message, /line 2: is over 65536 bytes/);

  // 20 lines of ~60 KiB cross the 1 MiB session limit at line 18.
  const big = line(["y".repeat(60 * 1024)]);
  const many = await session(
    s,
    Array.from({ length: 20 }, () => big),
  );
  const errors = many.lines.filter((l) => l.code);
  assert.equal(errors.length, 1);
  assert.equal(errors[0].code, "payload_too_large");
  assert.match(errors[0].message, /brings the session over 1048576 bytes/);
  const acked = many.lines.filter((l) => l.start).length;
  assert.equal(errors[0].line, acked + 1);
  assert.ok(acked * big.length <= SESSION_LIMIT && (acked + 1) * big.length > SESSION_LIMIT);
  assert.equal(many.lines.at(-1).end.reason, "error");
});

test("what is known before the first line is sent is an HTTP error; an empty body just ends", async () => {
  const s = await newStream(gw.base);
  const missing = await session(s.replace(/\/s$/, "/nope"), [line(["a"])]);
  assert.equal(missing.status, 404);
  assert.equal(missing.lines[0].code, "stream_not_found");
  const badPath = await session("/v1/buckets/BAD/streams/s", [line(["a"])]);
  assert.equal(badPath.status, 400);
  assert.equal(badPath.lines[0].code, "bad_path");
  const empty = await session(s, []);
  assert.equal(empty.status, 200);
  assert.deepEqual(empty.lines, [{ end: { reason: "done", batches: 0 } }]);
  const blank = await session(s, ["\n", "  \r\n"]);
  assert.deepEqual(blank.lines, [{ end: { reason: "done", batches: 0 } }]);
  const text = await request(`${gw.base}${s}/records`, {
    method: "POST",
    headers: { "content-type": "text/plain" },
    body: "hi",
  });
  assert.equal(text.statusCode, 415);
  const refusal = (await text.body.json()) as { code: string; message: string };
  assert.equal(refusal.code, "unsupported_media_type");
  assert.match(refusal.message, /application\/x-ndjson/);
});

test("the first line's fencing token opens the session; a fenced stream refuses others", async () => {
  const s = await newStream(gw.base);
  const fence = await http(gw.base, "POST", `${s}/fence`, { fencing_token: "me" });
  assert.equal(fence.status, 200, fence.text);
  const ok = await session(s, [
    line(["a"], { fencing_token: "me" }),
    line(["b"], { fencing_token: "me" }),
  ]);
  assert.deepEqual(
    ok.lines.map((l) => l.start?.seq_num ?? l.end?.reason),
    [0, 1, "done"],
  );
  const mixed = await session(s, [line(["c"], { fencing_token: "me" }), line(["d"])]);
  assert.equal(mixed.lines[1].code, "invalid_argument");
  assert.match(mixed.lines[1].message, /fencing_token/);
  const wrong = await session(s, [
    line(["e"], { fencing_token: "other" }),
    line(["f"], { fencing_token: "other" }),
  ]);
  assert.equal(wrong.status, 200);
  assert.equal(wrong.lines[0].code, "fencing_token_mismatch");
  assert.equal(wrong.lines[0].line, 1);
  assert.equal(wrong.lines.at(-1).end.reason, "error");
  assert.equal(await tail(s), 3);
});

test("acks stream back while the body is still being sent", async () => {
  const s = await newStream(gw.base);
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  async function* lines() {
    yield line(["first"]);
    await gate;
    yield line(["second"]);
  }
  const res = await request(`${gw.base}${s}/records`, {
    method: "POST",
    headers: { "content-type": "application/x-ndjson" },
    body: Readable.from(lines()),
  });
  assert.equal(res.statusCode, 200);
  const reader = res.body[Symbol.asyncIterator]();
  const first = await reader.next();
  assert.equal(JSON.parse(String(first.value)).start.seq_num, 0);
  assert.equal(await metric(gw.base, "nova_gateway_sessions", 'kind="ndjson"'), 1);
  release();
  let rest = "";
  for (let r = await reader.next(); !r.done; r = await reader.next()) rest += String(r.value);
  assert.deepEqual(
    rest
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l).start?.seq_num ?? JSON.parse(l).end),
    [1, { reason: "done", batches: 2 }],
  );
  await append(gw.base, s, ["after"]);
  await waitFor(
    async () => (await metric(gw.base, "nova_gateway_sessions", 'kind="ndjson"')) === 0,
  );
});
