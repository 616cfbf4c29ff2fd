import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import type { Record__Output } from "../../../gen/nova/v1/Record.ts";
import { SharedEncodings } from "../hubs/shared-encodings.ts";
import type { BatchSource, Cursor, SourceBatch } from "../sources/index.ts";
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

/** Hub batches of the given record sizes, in seq_num order, each shared by every lane. */
function hubBatches(sizes: number[][]): SourceBatch[] {
  let seq = 0;
  return sizes.map((batch) => {
    const records = batch.map(
      (size): Record__Output => ({
        seq_num: String(seq++),
        timestamp_ms: "0",
        headers: [],
        body: Buffer.alloc(size, 0x61),
      }),
    );
    return {
      records,
      tail: { seq_num: String(seq), timestamp_ms: "0" },
      shared: new SharedEncodings(),
    };
  });
}

test("lanes taking hub batches whole, in step or not, each show their own event id", () => {
  const tally = fc.record({
    count: fc.bigInt({ min: 0n, max: 3n }),
    bytes: fc.bigInt({ min: 0n, max: 20n }),
  });
  const bound = fc.option(fc.bigInt({ min: 1n, max: 12n }), { nil: undefined });
  fc.assert(
    fc.property(
      fc.array(fc.record({ resume: fc.option(tally, { nil: undefined }), count: bound }), {
        minLength: 1,
        maxLength: 5,
      }),
      fc.array(fc.array(fc.nat(6), { minLength: 1, maxLength: 3 }), { maxLength: 6 }),
      fc.array(fc.nat(), { minLength: 6, maxLength: 6 }),
      (specs, sizes, orders) => {
        const lanes = specs.map((spec, i) => {
          const resume = spec.resume && { next: 0n, ...spec.resume };
          const lane = new SseLane(i, {
            ...base,
            source: noting().source,
            bounds: spec.count === undefined ? {} : { count: spec.count },
            ...(resume ? { resume } : {}),
          });
          lane.handle({ records: [], tail: { seq_num: "0", timestamp_ms: "0" } }, true);
          // What the lane has delivered so far, and whether it still takes batches whole.
          return { lane, spec, count: resume?.count ?? 0n, bytes: resume?.bytes ?? 0n, open: true };
        });
        hubBatches(sizes).forEach((batch, b) => {
          const count = BigInt(batch.records.length);
          const bytes = BigInt(batch.records.reduce((n, r) => n + r.body.length, 0));
          // Each batch taken by the lanes in an order of its own.
          const turn = (orders[b] ?? 0) % lanes.length;
          for (const model of [...lanes.slice(turn), ...lanes.slice(0, turn)]) {
            if (!model.open) continue;
            const takes = model.spec.count === undefined || model.count + count < model.spec.count;
            const rest = model.lane.takeWhole(batch);
            assert.equal(rest !== undefined, takes);
            if (!takes) {
              model.open = false;
              continue;
            }
            model.count += count;
            model.bytes += bytes;
            const last = batch.records.at(-1)?.seq_num;
            assert.equal(model.lane.lastIdText, `${last},${model.count},${model.bytes}`);
          }
        });
      },
    ),
    { numRuns: 300 },
  );
});
