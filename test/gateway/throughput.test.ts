// A stream's throughput cap through the gateway, over real sockets: a star process started with
// --throughput-max-wait-ms 300 behind the gateway. A batch above the cap's second of budget is
// appended while the bucket is full; a batch the cap would hold past the bound is 429
// resource_exhausted with Retry-After and the exact figures, and nothing of it is stored; retried
// after the time it names, it is held within the bound and appended; once the rate is PATCHed to
// 0 appends go straight through.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Gateway } from "../harness/gateway.ts";
import { http, newStream } from "../harness/http.ts";
import { type Stack, startStack } from "../harness/stack.ts";

let stack: Stack<Gateway> | undefined;

before(async () => {
  stack = await startStack("nova-throughput-", {
    starArgs: ["--throughput-max-wait-ms", "300"],
    gateway: { checkResponses: true },
  });
});
after(() => stack?.close());

const append = (base: string, stream: string, bytes: number, fill = "x") =>
  http(base, "POST", `${stream}/records`, { records: [{ body: fill.repeat(bytes) }] });

test("over a stream's throughput cap: 429 with Retry-After and the figures, nothing stored; PATCH to 0 lifts it", async () => {
  const base = (stack as Stack<Gateway>).gw.base;
  const stream = await newStream(base, {
    class: "CLASS_EXPRESS",
    throughput_max_bytes_per_second: 2000,
  });
  // A batch above a second's budget goes through at once while the bucket is full, and leaves it
  // 3000 bytes in debt.
  const big = await append(base, stream, 5000, "a");
  assert.equal(big.status, 200, big.text);

  // A second's budget now waits about 2500 ms, past 300: refused, with a margin of 2.2 s for a
  // stalled machine before it would be held instead.
  const over = await append(base, stream, 2000, "c");
  assert.equal(over.status, 429, over.text);
  const { retry_after_ms: retryAfterMs, ...rest } = over.json;
  assert.deepEqual(rest, {
    code: "resource_exhausted",
    message: `the stream's throughput cap (2000 bytes/s) would hold this batch longer than 300 ms, so nothing of it was appended; retry after ${retryAfterMs} ms, or raise throughput_max_bytes_per_second`,
    retryable: true,
    limit_bytes_per_second: 2000,
  });
  assert.ok(Number.isInteger(retryAfterMs) && retryAfterMs >= 1 && retryAfterMs <= 2200);
  assert.equal(over.headers["retry-after"], String(Math.ceil(retryAfterMs / 1000)));
  const tail = await http(base, "GET", `${stream}/records/tail`);
  assert.equal(tail.json.tail.seq_num, 1, "nothing of the refused batch");

  // Retried after retry_after_ms, as the answer says, the same batch is held within the bound,
  // then appended.
  await new Promise((resolve) => setTimeout(resolve, retryAfterMs));
  const held = await append(base, stream, 2000, "d");
  assert.equal(held.status, 200, held.text);
  assert.deepEqual([held.json.start.seq_num, held.json.end.seq_num], [1, 2]);

  // Unlimited from the next append on: a burst far above the old rate goes straight through.
  const patched = await http(base, "PATCH", stream, { throughput_max_bytes_per_second: 0 });
  assert.equal(patched.status, 200, patched.text);
  const free = await Promise.all([0, 1, 2].map(() => append(base, stream, 5000, "e")));
  for (const res of free) assert.equal(res.status, 200, res.text);
  const page = await http(base, "GET", `${stream}/records?seq_num=0`);
  assert.deepEqual(
    page.json.records.map((r: { body: string }) => `${r.body[0]}${r.body.length}`).sort(),
    ["a5000", "d2000", "e5000", "e5000", "e5000"],
  );
});
