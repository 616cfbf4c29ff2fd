import assert from "node:assert/strict";
import { test } from "node:test";
import type { BatchSource, Cursor } from "../sources/index.ts";
import { SseLane } from "./sse-lane.ts";

/** A source that notes where each read starts and never yields. */
function noting(): { source: BatchSource; starts: Cursor[] } {
  const starts: Cursor[] = [];
  const source: BatchSource = (cursor) => {
    starts.push(cursor);
    return (async function* () {})();
  };
  return { source, starts };
}

const cursor: Cursor = { start: { seq_num: "7" }, clamp: true };
const base = { cursor, bounds: {}, format: "raw" as const, int64: "number" as const };
const signal = new AbortController().signal;

test("a lane reads from its cursor, or from where the session it resumes left the stream", () => {
  const fresh = noting();
  new SseLane(0, { ...base, source: fresh.source }).open(signal);
  assert.deepEqual(fresh.starts, [cursor]);

  const resumed = noting();
  const resume = { next: 12n, count: 3n, bytes: 30n };
  const lane = new SseLane(0, { ...base, source: resumed.source, resume });
  lane.open(signal);
  assert.deepEqual(resumed.starts, [{ start: { seq_num: "12" }, clamp: false }]);
  assert.equal(lane.resumed, true);
});

test("a lane opens once: its source and cursor are not kept after", () => {
  const { source, starts } = noting();
  const lane = new SseLane(0, { ...base, source });
  lane.open(signal);
  assert.throws(() => lane.open(signal), /the lane is open already/);
  assert.equal(starts.length, 1);
});
