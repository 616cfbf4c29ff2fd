import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import {
  addTotals,
  type Bounds,
  batchTotals,
  boundsMet,
  cutBatch,
  staysOpen,
  type Tally,
  ZERO_TALLY,
} from "./bounds.ts";

interface R {
  timestamp_ms: string;
  size: number;
}
const size = (r: R) => r.size;
const rec = (size: number, ts = 0): R => ({ timestamp_ms: String(ts), size });

/**
 * Runs batches through cutBatch carrying nothing but the tally from one to the next, which is
 * all a resume carries: any batch may as well be the first of a reconnect.
 */
function deliver(batches: R[][], bounds: Bounds) {
  let tally: Tally = ZERO_TALLY;
  const taken: R[] = [];
  for (const batch of batches) {
    const cut = cutBatch(batch, size, bounds, tally);
    taken.push(...batch.slice(0, cut.take));
    tally = cut.tally;
    if (cut.done) return { taken, tally, done: true };
  }
  return { taken, tally, done: false };
}

test("a count bound delivers exactly count records, however batches and resumes fall", () => {
  fc.assert(
    fc.property(
      fc.array(
        fc.array(
          fc.nat(100).map((n) => rec(n)),
          { maxLength: 8 },
        ),
        { maxLength: 12 },
      ),
      fc.bigInt({ min: 1n, max: 40n }),
      (batches, count) => {
        const total = batches.flat().length;
        const got = deliver(batches, { count });
        assert.equal(BigInt(got.taken.length), count < BigInt(total) ? count : BigInt(total));
        assert.equal(got.tally.count, BigInt(got.taken.length));
        assert.equal(got.done, BigInt(total) >= count);
      },
    ),
  );
});

test("a bytes bound is never passed, except by a session's first record", () => {
  fc.assert(
    fc.property(
      fc.array(
        fc.array(
          fc.nat(100).map((n) => rec(n)),
          { maxLength: 8 },
        ),
        { maxLength: 12 },
      ),
      fc.bigInt({ min: 1n, max: 500n }),
      (batches, bytes) => {
        const got = deliver(batches, { bytes });
        const sum = got.taken.reduce((s, r) => s + BigInt(r.size), 0n);
        assert.equal(got.tally.bytes, sum);
        if (got.taken.length > 1) assert.ok(sum <= bytes);
        const all = batches.flat();
        if (all.length > 0) assert.ok(got.taken.length >= 1, "the first record always goes");
        // Not done only when every record fit.
        if (!got.done) assert.equal(got.taken.length, all.length);
      },
    ),
  );
});

test("until_ms stops at the first record at or past it", () => {
  const batch = [rec(1, 10), rec(1, 20), rec(1, 30)];
  assert.deepEqual(cutBatch(batch, size, { untilMs: 30n }, ZERO_TALLY), {
    take: 2,
    tally: { count: 2n, bytes: 2n },
    done: true,
  });
  assert.equal(cutBatch(batch, size, { untilMs: 10n }, ZERO_TALLY).take, 0);
  assert.equal(cutBatch(batch, size, { untilMs: 31n }, ZERO_TALLY).done, false);
  // Exact beyond 2^53.
  const big = 2n ** 60n;
  const huge = [rec(1, Number(0)), { timestamp_ms: (big + 1n).toString(), size: 1 }];
  assert.equal(cutBatch(huge, size, { untilMs: big + 1n }, ZERO_TALLY).take, 1);
});

test("bounds already met by the tally deliver nothing", () => {
  assert.equal(boundsMet({ count: 3n }, { count: 3n, bytes: 0n }), true);
  assert.equal(boundsMet({ bytes: 3n }, { count: 1n, bytes: 5n }), true);
  assert.equal(boundsMet({}, { count: 100n, bytes: 100n }), false);
  assert.deepEqual(cutBatch([rec(1)], size, { count: 2n }, { count: 2n, bytes: 9n }), {
    take: 0,
    tally: { count: 2n, bytes: 9n },
    done: true,
  });
});

test("addTotals and staysOpen answer what cutBatch does when it takes the whole batch and stays open", () => {
  const bound = fc.option(fc.bigInt({ min: 0n, max: 600n }), { nil: undefined });
  fc.assert(
    fc.property(
      fc.array(
        fc.record({ size: fc.nat(100), ts: fc.nat(50) }).map((r) => rec(r.size, r.ts)),
        { maxLength: 8 },
      ),
      fc.record({ count: bound, bytes: bound, untilMs: bound }),
      fc.record({
        count: fc.bigInt({ min: 0n, max: 20n }),
        bytes: fc.bigInt({ min: 0n, max: 300n }),
      }),
      (records, bounds, tally) => {
        const cut = cutBatch(records, size, bounds, tally);
        const whole = cut.take === records.length && !cut.done;
        const totals = batchTotals(records, size);
        const after = addTotals(tally, totals);
        assert.equal(staysOpen(totals, bounds, after), whole);
        if (whole) assert.deepEqual(after, cut.tally);
      },
    ),
    { numRuns: 2000 },
  );
});
