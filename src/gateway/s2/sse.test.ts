import assert from "node:assert/strict";
import { test } from "node:test";
import { waitFor } from "../../../test/harness/wait.ts";
import type { SseTiming } from "../sessions/index.ts";
import {
  batch,
  caughtUp,
  FakeOut,
  FakeSource,
  rec,
} from "../sessions/sse/sse-fakes.test-helper.ts";
import { type S2SseOptions, S2SseSession } from "./sse.ts";

const timing: SseTiming = {
  retryMs: () => 0,
  drainRetryMs: () => 0,
  pingMs: () => 60_000,
  endLingerMs: 60_000,
};

function session(src: FakeSource, over: Partial<S2SseOptions> = {}) {
  const abort = new AbortController();
  const s = new S2SseSession({
    source: src.source,
    cursor: { start: { seq_num: "0" }, clamp: false },
    bounds: {},
    format: "raw",
    slowConsumerMs: 60_000,
    timing,
    signal: abort.signal,
    ...over,
  });
  return { s, abort };
}

async function runToEnd(s: S2SseSession): Promise<FakeOut> {
  await s.start();
  const out = new FakeOut();
  await s.run(out);
  return out;
}

test("ids count records and S2's metered bytes; the caught-up ping carries the tail", async () => {
  const src = new FakeSource();
  // Body "x": 8 + 1 = 9 metered bytes each.
  src.push(batch([0, 1], 2), caughtUp(2));
  const { s, abort } = session(src);
  await s.start();
  const out = new FakeOut();
  const running = s.run(out);
  await waitFor(() => out.events().length === 2);
  src.push(batch([2], 3));
  await waitFor(() => out.events().length === 3);
  assert.deepEqual(
    out.events().map((e) => [e.event, e.id]),
    [
      ["batch", "1,2,18"],
      ["ping", undefined],
      ["batch", "2,3,27"],
    ],
  );
  assert.deepEqual(out.events()[1]?.data.tail, { seq_num: 2, timestamp: 0 });
  assert.deepEqual(out.events()[0]?.data.records[0], { seq_num: 0, timestamp: 0, body: "x" });
  abort.abort();
  out.destroy();
  await running;
  assert.equal(src.released, true);
});

test("count and bytes cut a batch where S2 would, then [DONE]", async () => {
  const src = new FakeSource();
  src.push(batch([0, 1, 2, 3], 4));
  const bytes = await runToEnd(session(src, { bounds: { bytes: 20n } }).s);
  assert.deepEqual(
    bytes.events().map((e) => e.id),
    ["1,2,18"],
  );
  assert.match(bytes.text, /data: \[DONE\]\n\n$/);
  const again = new FakeSource();
  again.push(batch([0, 1, 2, 3], 4));
  const count = await runToEnd(session(again, { bounds: { count: 3n } }).s);
  assert.deepEqual(
    count.events().map((e) => e.id),
    ["2,3,27"],
  );
  assert.equal(again.released, true);
});

test("bounded without wait, the session ends once caught up, with no ping", async () => {
  const src = new FakeSource();
  src.push(batch([0], 1), caughtUp(1));
  const out = await runToEnd(session(src, { bounds: { count: 10n }, idleEndMs: 0 }).s);
  assert.deepEqual(
    out.events().map((e) => e.event),
    ["batch"],
  );
  assert.match(out.text, /data: \[DONE\]\n\n$/);
});

test("a resumed session whose bounds are met ends at once", async () => {
  const src = new FakeSource();
  src.push(batch([5], 6));
  const out = await runToEnd(session(src, { bounds: { count: 0n } }).s);
  assert.equal(out.text, "data: [DONE]\n\n");
});

test("draining ends the session with server_draining, which the SDK retries", async () => {
  const src = new FakeSource();
  src.push(caughtUp(0));
  const { s } = session(src);
  await s.start();
  const out = new FakeOut();
  const running = s.run(out);
  await waitFor(() => out.events().length === 1);
  s.drain();
  await running;
  const last = out.events().at(-1);
  assert.equal(last?.event, "error");
  assert.equal(last?.data.code, "server_draining");
  assert.equal(src.released, true);
});

test("a client that reads nothing for slowConsumerMs gets an error event", async () => {
  const src = new FakeSource();
  src.push(batch([0], 1));
  let told = 0;
  const { s } = session(src, { slowConsumerMs: 50, onSlowConsumer: () => told++ });
  await s.start();
  const out = new FakeOut();
  out.stalled = true;
  const running = s.run(out);
  // Enough to fill the response's small buffer, then the session waits for it to drain.
  for (let i = 1; i < 20; i++) src.push(batch([i], i + 1));
  // The session gives up and ends the response; the client then reads what was left for it.
  await waitFor(() => out.writableEnded);
  out.unstall();
  await running;
  assert.equal(out.events().at(-1)?.data.code, "unavailable");
  assert.equal(src.released, true);
  assert.equal(told, 1);
});

test("a record that is not UTF-8, read as raw text, is delivered with U+FFFD as S2 does", async () => {
  const src = new FakeSource();
  src.push(
    { records: [rec(0), { ...rec(1), body: Buffer.from([0xff]) }], tail: null },
    caughtUp(2),
  );
  const out = await runToEnd(session(src, { bounds: { count: 10n }, idleEndMs: 0 }).s);
  assert.deepEqual(
    out.events()[0]?.data.records.map((r: { body: string }) => r.body),
    ["x", "\uFFFD"],
  );
  assert.match(out.text, /data: \[DONE\]\n\n$/);
});
