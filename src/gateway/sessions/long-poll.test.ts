import assert from "node:assert/strict";
import { test } from "node:test";
import type { Record__Output } from "../../gen/nova/v1/Record.ts";
import { HttpError } from "../errors/index.ts";
import { longPoll, WaitPassed } from "./long-poll.ts";
import type { BatchSource, SourceBatch } from "./sources/source.ts";

const rec = (seq: number, ts = seq): Record__Output => ({
  seq_num: String(seq),
  timestamp_ms: String(ts),
  body: Buffer.from("x"),
  headers: [],
});
const tail = (seq: number) => ({ seq_num: String(seq), timestamp_ms: "0" });

/** Yields the given batches, then waits until aborted; tells whether it was released. */
function source(batches: SourceBatch[], state = { released: false }): BatchSource {
  return (_cursor, signal) =>
    (async function* () {
      try {
        yield* batches;
        await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
        signal.throwIfAborted();
      } finally {
        state.released = true;
      }
    })();
}

const cursor = { start: {}, clamp: false };

test("returns the first records, within the bounds, and releases the source", async () => {
  const state = { released: false };
  const got = await longPoll({
    source: source(
      [
        { records: [], tail: tail(0) },
        { records: [rec(0), rec(1), rec(2)], tail: tail(3) },
      ],
      state,
    ),
    cursor,
    bounds: { count: 2n },
    waitMs: 60_000,
    signal: new AbortController().signal,
  });
  assert.deepEqual(
    got.records.map((r) => r.seq_num),
    ["0", "1"],
  );
  assert.deepEqual(got.tail, tail(3));
  assert.equal(state.released, true);
});

test("answers empty with the tail when the wait passes", async () => {
  const state = { released: false };
  const got = await longPoll({
    source: source([{ records: [], tail: tail(7) }], state),
    cursor,
    bounds: {},
    waitMs: 20,
    signal: new AbortController().signal,
  });
  assert.deepEqual(got, { records: [], tail: tail(7) });
  assert.equal(state.released, true);
});

test("a first record at or past until_ms answers empty at once", async () => {
  const got = await longPoll({
    source: source([{ records: [rec(0, 50)], tail: tail(1) }]),
    cursor,
    bounds: { untilMs: 50n },
    waitMs: 60_000,
    signal: new AbortController().signal,
  });
  assert.deepEqual(got.records, []);
});

test("no answer at all within the wait is 503, as WaitPassed", async () => {
  await assert.rejects(
    longPoll({
      source: source([]),
      cursor,
      bounds: {},
      waitMs: 10,
      signal: new AbortController().signal,
    }),
    (e: unknown) => e instanceof WaitPassed && e.code === "unavailable" && e.status === 503,
  );
});

test("a source that ends before its first frame is a 503 that is not WaitPassed", async () => {
  const ended: BatchSource = () => (async function* () {})();
  await assert.rejects(
    longPoll({
      source: ended,
      cursor,
      bounds: {},
      waitMs: 60_000,
      signal: new AbortController().signal,
    }),
    (e: unknown) => e instanceof HttpError && !(e instanceof WaitPassed) && e.status === 503,
  );
});
