// The flood case of docs/operating.md as a test of its bound, over real sockets: large appends
// from several loops at once into one stream, beside a client of one-record appends to the same
// stream. Every answer is an ack or a 429 with Retry-After, the small appends are all acked, and
// the stream holds each acked batch exactly once. How long the small appends wait is a figure
// for `npm run bench:flood`, not a threshold here.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Pool } from "undici";
import type { Gateway } from "../harness/gateway.ts";
import { http, newStream } from "../harness/http.ts";
import { type Stack, startStack } from "../harness/stack.ts";

let stack: Stack<Gateway>;

before(async () => {
  // A small append budget, so that the flood meets it.
  stack = await startStack("nova-flood-", {
    gateway: { inflightAppendBytes: 48 * 1024 * 1024, bodyLimit: 8 * 1024 * 1024 },
  });
});
after(() => stack?.close());

const RECORD = Buffer.alloc(512 * 1024, 7).toString("base64");

test("a flood of large appends beside small ones: acks or 429s, every small one acked, nothing lost or doubled", async () => {
  const path = await newStream(stack.gw.base);
  const pool = new Pool(stack.gw.base, { connections: 8 });
  const statuses = new Map<number, number>();
  const bigAcks: number[] = [];
  const post = async (body: string) => {
    const res = await pool.request({
      method: "POST",
      path: `${path}/records?format=base64`,
      headers: { "content-type": "application/json" },
      body,
    });
    const text = await res.body.text();
    statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
    if (res.statusCode === 429) assert.match(String(res.headers["retry-after"]), /^\d+$/);
    return { status: res.statusCode, json: res.statusCode === 200 ? JSON.parse(text) : text };
  };
  const big = JSON.stringify({ records: Array.from({ length: 8 }, () => ({ body: RECORD })) });
  let flooding = true;
  const floods = Array.from({ length: 4 }, async () => {
    for (let acked = 0; acked < 3; ) {
      const res = await post(big);
      assert.ok(res.status === 200 || res.status === 429, `a big append answered ${res.status}`);
      if (res.status === 200) {
        bigAcks.push(res.json.start.seq_num);
        acked++;
        continue;
      }
      // A moment's back-off (Retry-After says a second or more): retried at once, each 4 MiB body
      // would be sent again and again, and the load be the test's own.
      await new Promise((r) => setTimeout(r, 200));
    }
  });
  const small: { seq: number; body: string }[] = [];
  const smalls = (async () => {
    for (let i = 0; flooding || i < 10; i++) {
      const body = Buffer.from(`small ${i}`).toString("base64");
      const res = await post(JSON.stringify({ records: [{ body }] }));
      assert.equal(res.status, 200, `small append ${i}: ${JSON.stringify(res.json)}`);
      small.push({ seq: res.json.start.seq_num, body });
    }
  })();
  // A flood that fails stops the small appends too, or they would go on for ever.
  await Promise.all(floods).finally(() => {
    flooding = false;
  });
  await smalls;
  await pool.close();
  assert.deepEqual([...statuses.keys()].sort(), statuses.has(429) ? [200, 429] : [200]);

  // Each acked batch once, where its ack said, and nothing else.
  const tail = (await http(stack.gw.base, "GET", `${path}/records/tail`)).json.tail.seq_num;
  assert.equal(tail, bigAcks.length * 8 + small.length);
  for (const s of small) {
    const read = await http(
      stack.gw.base,
      "GET",
      `${path}/records?seq_num=${s.seq}&count=1&format=base64`,
    );
    assert.equal(read.json.records[0].body, s.body);
  }
  for (const seq of bigAcks) {
    // Pages hold 1 MiB: a batch of 4 MiB takes a few.
    const bodies: string[] = [];
    while (bodies.length < 8) {
      const from = seq + bodies.length;
      const page = `${path}/records?seq_num=${from}&count=${8 - bodies.length}&format=base64`;
      const read = await http(stack.gw.base, "GET", page);
      bodies.push(...read.json.records.map((r: { body: string }) => r.body));
    }
    assert.ok(bodies.every((b) => b === RECORD));
  }
});
