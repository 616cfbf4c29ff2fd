import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { PageRule } from "./page-rule.ts";

interface Rec {
  ts: bigint;
  size: number;
}

/** A page cut by the rule, as every reader cuts one: take while admitted, stop at the first no. */
function cut(rule: PageRule, records: Rec[]): Rec[] {
  const page: Rec[] = [];
  for (const r of records) {
    if (!rule.admits(r.ts, r.size)) break;
    rule.take(r.size);
    page.push(r);
  }
  return page;
}

const records = fc.array(
  fc.record({ ts: fc.bigInt({ min: 0n, max: 100n }), size: fc.nat({ max: 50 }) }),
  { maxLength: 30 },
);
const budgets = fc.record({
  maxRecords: fc.oneof(fc.integer({ min: 1, max: 10 }), fc.constant(Number.POSITIVE_INFINITY)),
  maxBytes: fc.oneof(fc.integer({ min: 0, max: 200 }), fc.constant(Number.POSITIVE_INFINITY)),
  untilMs: fc.option(fc.bigInt({ min: 0n, max: 100n }), { nil: undefined }),
});

test("property: a page is a prefix within both budgets, the first record taken however large", () => {
  fc.assert(
    fc.property(records, budgets, (recs, b) => {
      const page = cut(new PageRule(b.maxRecords, b.maxBytes, b.untilMs), recs);
      assert.deepEqual(page, recs.slice(0, page.length));
      for (const r of page) assert.ok(b.untilMs === undefined || r.ts < b.untilMs);
      if (page.length > 1) {
        assert.ok(page.length <= b.maxRecords);
        assert.ok(page.reduce((n, r) => n + r.size, 0) <= b.maxBytes);
      }
      const first = recs[0];
      if (first && (b.untilMs === undefined || first.ts < b.untilMs)) assert.ok(page.length >= 1);
    }),
  );
});

test("property: a page is as long as the rule allows: the next record breaks a bound", () => {
  fc.assert(
    fc.property(records, budgets, (recs, b) => {
      const page = cut(new PageRule(b.maxRecords, b.maxBytes, b.untilMs), recs);
      const next = recs[page.length];
      if (!next) return;
      const bytes = page.reduce((n, r) => n + r.size, 0);
      const stampedOut = b.untilMs !== undefined && next.ts >= b.untilMs;
      const overBudget =
        page.length > 0 && (page.length >= b.maxRecords || bytes + next.size > b.maxBytes);
      assert.ok(stampedOut || overBudget);
    }),
  );
});

test("property: remaining() is what is left of each finite budget, 0 for an unbounded one", () => {
  fc.assert(
    fc.property(records, budgets, (recs, b) => {
      const rule = new PageRule(b.maxRecords, b.maxBytes, b.untilMs);
      const page = cut(rule, recs);
      if (rule.full) return;
      const bytes = page.reduce((n, r) => n + r.size, 0);
      const { count, bytes: leftBytes } = rule.remaining();
      if (bytes >= b.maxBytes) {
        // Only an empty record still fits: one is asked for, so no Read looks past it.
        assert.deepEqual({ count, bytes: leftBytes }, { count: 1, bytes: 1 });
        return;
      }
      assert.equal(count, Number.isFinite(b.maxRecords) ? b.maxRecords - page.length : 0);
      assert.equal(leftBytes, Number.isFinite(b.maxBytes) ? b.maxBytes - bytes : 0);
    }),
  );
});

test("remaining() never asks a star for 0 of a finite budget, which would mean the maximum", () => {
  const rule = new PageRule(2, 10);
  rule.take(10);
  assert.deepEqual(rule.remaining(), { count: 1, bytes: 1 });
  assert.deepEqual(new PageRule(Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY).remaining(), {
    count: 0,
    bytes: 0,
  });
  assert.equal(rule.fits(0), true);
  rule.take(0);
  assert.equal(rule.full, true);
  assert.equal(rule.fits(0), false);
});
