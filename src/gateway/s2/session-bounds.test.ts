import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import type { Record__Output } from "../../gen/nova/v1/Record.ts";
import { meteredBytes } from "./metering.ts";
import { cutToSessionBounds } from "./session-bounds.ts";

const record = (seq: number, size: number, ts = seq): Record__Output => ({
  seq_num: String(seq),
  timestamp_ms: String(ts),
  body: Buffer.alloc(size),
  headers: [],
});

const batches = fc.array(fc.array(fc.nat(40), { maxLength: 8 }), { maxLength: 6 });
const bound = fc.option(fc.bigInt({ min: 1n, max: 200n }), { nil: undefined });

test("across batches, what is taken never passes count or bytes, and stops only at a bound", () => {
  fc.assert(
    fc.property(batches, bound, bound, (sizes, count, bytes) => {
      const bounds = { ...(count ? { count } : {}), ...(bytes ? { bytes } : {}) };
      let tally = { count: 0n, bytes: 0n };
      let seq = 0;
      let done = false;
      for (const batch of sizes) {
        const records = batch.map((size) => record(seq++, size));
        const cut = cutToSessionBounds(records, bounds, tally);
        const taken = records.slice(0, cut.take);
        const metered = taken.reduce((n, r) => n + BigInt(meteredBytes(r)), 0n);
        assert.deepEqual(cut.tally, {
          count: tally.count + BigInt(cut.take),
          bytes: tally.bytes + metered,
        });
        if (count !== undefined) assert.ok(cut.tally.count <= count);
        if (bytes !== undefined) assert.ok(cut.tally.bytes <= bytes);
        // Short of the whole batch only when a bound is met or the next record would pass it.
        if (cut.take < records.length) assert.equal(cut.done, true);
        tally = cut.tally;
        done = cut.done;
        if (done) break;
      }
    }),
  );
});

test("a record past the bytes bound is not delivered, even the session's first", () => {
  assert.deepEqual(cutToSessionBounds([record(0, 10)], { bytes: 17n }, { count: 0n, bytes: 0n }), {
    take: 0,
    tally: { count: 0n, bytes: 0n },
    done: true,
  });
});

test("a record at or past until ends the session before it", () => {
  const records = [record(0, 1, 5), record(1, 1, 9), record(2, 1, 10)];
  const cut = cutToSessionBounds(records, { untilMs: 10n }, { count: 0n, bytes: 0n });
  assert.equal(cut.take, 2);
  assert.equal(cut.done, true);
});

test("bounds already met take nothing", () => {
  const cut = cutToSessionBounds([record(0, 1)], { count: 2n }, { count: 2n, bytes: 18n });
  assert.deepEqual(cut, { take: 0, tally: { count: 2n, bytes: 18n }, done: true });
});
