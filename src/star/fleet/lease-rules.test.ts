import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import type { LeaseRecord } from "./lease-record.ts";
import {
  handBacksOwed,
  LeaseWatch,
  neverJoined,
  owingHandBack,
  shouldTakeOver,
  viewOf,
} from "./lease-rules.ts";

test("a lease lapses exactly when the same ETag was read for a whole lease", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 1000 }),
      fc.array(fc.tuple(fc.integer({ min: 0, max: 400 }), fc.constantFrom("a", "b", undefined)), {
        maxLength: 30,
      }),
      (leaseMs, reads) => {
        const watch = new LeaseWatch(leaseMs);
        let now = 0;
        let model: { etag: string; at: number } | undefined;
        for (const [dt, etag] of reads) {
          now += dt;
          watch.observe("m", etag, now);
          const seen = etag ?? "";
          if (model?.etag !== seen) model = { etag: seen, at: now };
          assert.equal(watch.lapsed("m", now), now - model.at >= leaseMs);
          assert.equal(watch.lapsed("m", now + leaseMs), true, "unchanged for a lease: lapsed");
        }
      },
    ),
  );
  assert.equal(new LeaseWatch(10).lapsed("never-read", 1e9), false);
});

const record = (member: string, patch: Partial<LeaseRecord> = {}): LeaseRecord => ({
  ...neverJoined(member),
  epoch: 1,
  ...patch,
});

test("the view: members not fenced, a member that never joined too, this one unless fenced", () => {
  const records = new Map([
    ["a", record("a")],
    ["b", record("b", { state: "fenced" })],
    ["c", record("c", { state: "fencing", by: "a" })],
  ]);
  const all = ["d", "c", "b", "a"];
  assert.deepEqual(viewOf(all, records, "a", true), ["a", "c", "d"]);
  assert.deepEqual(viewOf(all, records, "a", false), ["a", "c", "d"], "not holding, not fenced");
  assert.deepEqual(viewOf(all, records, "b", false), ["a", "c", "d"], "fenced, not back yet");
  assert.deepEqual(viewOf(all, records, "b", true), ["a", "b", "c", "d"], "back with a new epoch");
});

test("a member leads once every member in its view handed back since it began leading", () => {
  const me = record("a", { since: 3 });
  const records = new Map([
    ["a", me],
    ["b", record("b", { released: { a: 3 } })],
    ["c", record("c", { released: { a: 2 } })],
  ]);
  assert.deepEqual(owingHandBack(me, records, ["a", "b", "c"]), ["c"]);
  assert.deepEqual(owingHandBack(me, records, ["a", "b"]), [], "c is not in the view");
  // A member never taken over (since 0) is owed nothing.
  assert.deepEqual(owingHandBack(record("a"), records, ["a", "b", "c"]), []);
});

test("a member owes a hand-back to each member in its view that began leading after its last", () => {
  const mine = record("a", { released: { b: 2, c: 1 } });
  const records = new Map([
    ["a", mine],
    ["b", record("b", { since: 2 })],
    ["c", record("c", { since: 4 })],
    ["d", record("d")],
  ]);
  assert.deepEqual(handBacksOwed(mine, records, ["a", "b", "c", "d"]), [{ member: "c", since: 4 }]);
});

test("a member is taken over when its lease lapsed, never once fenced, never by itself", () => {
  const watch = new LeaseWatch(100);
  watch.observe("b", '"1"', 0);
  assert.equal(shouldTakeOver(record("b"), "a", watch, 99), false);
  assert.equal(shouldTakeOver(record("b"), "a", watch, 100), true);
  assert.equal(shouldTakeOver(record("b", { state: "fencing", by: "c" }), "a", watch, 100), true);
  assert.equal(shouldTakeOver(record("b", { state: "fenced" }), "a", watch, 100), false);
  assert.equal(shouldTakeOver(record("b"), "b", watch, 100), false);
});
