// Reads with `wait` (long-poll), and the read bounds, over a real socket to a real star process.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Gateway } from "../harness/gateway.ts";
import { append, http, newStream } from "../harness/http.ts";
import { metric } from "../harness/metrics.ts";
import { type Stack, startStack } from "../harness/stack.ts";
import { waitFor } from "../harness/wait.ts";

let stack: Stack<Gateway>;
let gw: Gateway;

before(async () => {
  stack = await startStack("nova-longpoll-");
  gw = stack.gw;
});
after(() => stack?.close());

test("wait returns as soon as a record is appended", async () => {
  const s = await newStream(gw.base);
  await append(gw.base, s, ["old"]);
  const started = performance.now();
  const polling = http(gw.base, "GET", `${s}/records?seq_num=1&wait=60`);
  // The poll is parked on the stream (its hub holds an upstream Subscribe) before the append.
  await waitFor(
    async () => (await metric(gw.base, "nova_gateway_upstream_subscribe_calls")) === 1,
    {
      message: "the long-poll to be parked",
    },
  );
  await append(gw.base, s, ["new", "newer"]);
  const res = await polling;
  const elapsed = performance.now() - started;
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(
    res.json.records.map((r: { seq_num: number; body: string }) => [r.seq_num, r.body]),
    [
      [1, "new"],
      [2, "newer"],
    ],
  );
  assert.equal(res.json.tail.seq_num, 3);
  assert.ok(elapsed < 60_000, `returned after ${elapsed} ms`);
  // The stream's hub outlives its last reader by the linger (5 s), then its call ends.
  await waitFor(
    async () => (await metric(gw.base, "nova_gateway_upstream_subscribe_calls")) === 0,
    { message: "the hub's upstream call to end" },
  );
});

test("a wait answered by the records that closed the stream says it is closed", async () => {
  const s = await newStream(gw.base);
  const before = await metric(gw.base, "nova_gateway_upstream_subscribe_calls");
  const polling = http(gw.base, "GET", `${s}/records?seq_num=0&wait=60`);
  await waitFor(
    async () => (await metric(gw.base, "nova_gateway_upstream_subscribe_calls")) > before,
    { message: "the long-poll to be parked" },
  );
  // The batch and the close land together: the one page that answers the wait has both.
  const closing = await http(gw.base, "POST", `${s}/close`, { records: [{ body: "last" }] });
  assert.equal(closing.status, 200, closing.text);
  const res = await polling;
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(
    res.json.records.map((r: { body: string }) => r.body),
    ["last"],
  );
  assert.equal(res.json.closed, true, res.text);
});

test("wait=1 at the tail returns empty, with the tail, when its second is up", async () => {
  const s = await newStream(gw.base);
  await append(gw.base, s, ["a", "b"]);
  const started = performance.now();
  const res = await http(gw.base, "GET", `${s}/records?wait=1`);
  const elapsed = performance.now() - started;
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.json, {
    records: [],
    tail: { seq_num: 2, timestamp_ms: res.json.tail.timestamp_ms },
  });
  assert.ok(elapsed >= 900 && elapsed < 30_000, `returned after ${elapsed} ms`);
});

test("records already there are answered at once, within count, bytes and until_ms", async () => {
  const s = await newStream(gw.base);
  await append(gw.base, s, ["aa", "bb", "cc", "dd"]);
  const seqs = (res: { json: { records: { seq_num: number }[] } }) =>
    res.json.records.map((r) => r.seq_num);
  assert.deepEqual(
    seqs(await http(gw.base, "GET", `${s}/records?seq_num=1&wait=30&count=2`)),
    [1, 2],
  );
  assert.deepEqual(
    seqs(await http(gw.base, "GET", `${s}/records?seq_num=0&wait=30&bytes=5`)),
    [0, 1],
  );
  assert.deepEqual(seqs(await http(gw.base, "GET", `${s}/records?tail_offset=1&wait=30`)), [3]);
  const ts = (await http(gw.base, "GET", `${s}/records?seq_num=0`)).json.records[0].timestamp_ms;
  // until_ms at the first record's time: nothing to answer, at once.
  const until = await http(gw.base, "GET", `${s}/records?seq_num=0&wait=30&until_ms=${ts}`);
  assert.deepEqual(until.json.records, []);
  // The same bounds without wait (the unary Read) agree.
  assert.deepEqual(seqs(await http(gw.base, "GET", `${s}/records?seq_num=1&count=2`)), [1, 2]);
  assert.deepEqual(seqs(await http(gw.base, "GET", `${s}/records?tail_offset=1`)), [3]);
});

test("bad waits and starts are refused before any star is asked", async () => {
  const s = await newStream(gw.base);
  await append(gw.base, s, ["x"]);
  for (const [query, status, code] of [
    ["wait=61", 400, "bad_query"],
    ["wait=-1", 400, "bad_query"],
    ["wait=abc", 400, "bad_query"],
    ["wait=1&wait=2", 400, "bad_query"],
    ["seq_num=9&wait=5", 416, "range_not_satisfiable"],
  ] as const) {
    const res = await http(gw.base, "GET", `${s}/records?${query}`);
    assert.equal(res.status, status, `${query}: ${res.text}`);
    assert.equal(res.json.code, code, query);
  }
  const missing = await http(gw.base, "GET", `${s.replace(/\/s$/, "/nope")}/records?wait=5`);
  assert.equal(missing.status, 404);
  assert.equal(missing.json.code, "stream_not_found");
});
