import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { GarbageNudge, settledBytes } from "./garbage-nudge.ts";

/** A nudge over scripted memory levels (the first is the level at start); the looks that collect. */
function collectingLooks(levels: number[], slack: number, quietLooks = 1000): number[] {
  let at = 0;
  const calls: number[] = [];
  const nudge = new GarbageNudge({
    slackBytes: slack,
    intervalMs: 1000,
    quietLooks,
    measure: () => levels[at] as number,
    collect: () => calls.push(at),
  });
  for (at = 1; at < levels.length; at++) nudge.look();
  assert.equal(nudge.collections, calls.length);
  return calls;
}

test("collects once memory grows past the slack over the last collection's level", () => {
  // 171 - 100 > 70: collect; the next look (90) is the new level; 161 - 90 > 70: collect again.
  assert.deepEqual(collectingLooks([100, 120, 150, 171, 90, 100, 150, 161], 70), [3, 7]);
});

test("a level that only falls, or grows within the slack, is left to V8", () => {
  assert.deepEqual(collectingLooks([500, 400, 300, 350, 369, 320, 369], 70), []);
});

test("leftovers: a level that stays high after the quiet looks is collected once", () => {
  // Growth collects at look 2 (250 - 100 > 70); the burst's end leaves 240 with no growth; three
  // looks later the leftovers are collected; 240 stays (it is live), and is not collected again.
  const levels = [100, 150, 250, 240, 240, 240, 240, 240, 240, 240, 240];
  assert.deepEqual(collectingLooks(levels, 70, 3), [2, 6]);
});

test("never a collection on the look right after one, and each answers a level past the slack", () => {
  fc.assert(
    fc.property(
      fc.array(fc.nat(10_000), { minLength: 2, maxLength: 60 }),
      fc.nat(2_000),
      fc.integer({ min: 1, max: 10 }),
      (levels, slack, quiet) => {
        const calls = collectingLooks(levels, slack, quiet);
        for (let i = 1; i < calls.length; i++) {
          assert.ok((calls[i] as number) - (calls[i - 1] as number) >= 2);
        }
        for (const c of calls) {
          assert.ok(levels.slice(0, c).some((l) => (levels[c] as number) - l > slack));
        }
      },
    ),
  );
});

test("the level counts the old generation and buffers, not the young generation", () => {
  const spaces = [
    { space_name: "read_only_space", space_used_size: 1 },
    { space_name: "new_space", space_used_size: 1000 },
    { space_name: "old_space", space_used_size: 20 },
    { space_name: "code_space", space_used_size: 300 },
    { space_name: "new_large_object_space", space_used_size: 4000 },
    { space_name: "large_object_space", space_used_size: 50_000 },
  ];
  assert.equal(settledBytes(spaces, 600_000), 650_321);
});
