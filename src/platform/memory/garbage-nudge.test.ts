import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { GarbageNudge, MAX_REPEAT_FACTOR, settledBytes } from "./garbage-nudge.ts";

interface Script {
  /** The settled level at each look (the first is the level at start). */
  levels: number[];
  /** The buffer level at each look; the settled levels when not given. */
  buffers?: number[];
  /** The event loop's busy share at each look; 0 when not given. */
  busy?: number[];
  /** Full collections finished by each look, the nudge's own not counted; none when not given. */
  v8Collections?: number[];
  slack: number;
  quietLooks?: number;
}

/** A nudge over scripted memory levels; the looks that collect. */
function collectingLooks({
  levels,
  buffers = levels,
  busy = [],
  v8Collections = [],
  slack,
  quietLooks = 1000,
}: Script) {
  let at = 0;
  const calls: number[] = [];
  const nudge = new GarbageNudge({
    slackBytes: slack,
    intervalMs: 1000,
    quietLooks,
    quietBusy: 0.1,
    measure: () => ({ buffers: buffers[at] as number, settled: levels[at] as number }),
    busy: () => busy[at] ?? 0,
    collect: () => calls.push(at),
    // The nudge's own collections finish before its next look.
    fullCollections: () => (v8Collections[at] ?? 0) + calls.filter((look) => look < at).length,
  });
  for (at = 1; at < levels.length; at++) nudge.look();
  assert.equal(nudge.collections, calls.length);
  return calls;
}

test("collects once memory grows past the slack over the last collection's level", () => {
  // 171 - 100 > 70: collect; the next look (90) is the new level; 161 - 90 > 70: collect again.
  const levels = [100, 120, 150, 171, 90, 100, 150, 161];
  assert.deepEqual(collectingLooks({ levels, slack: 70 }), [3, 7]);
});

test("a full collection V8 ran by itself restarts the growth count: no nudge on top of it", () => {
  // V8 collected before look 3: 175 is the new level (without it, 175 - 100 > 70 collects); 260
  // is 85 past it.
  const levels = [100, 130, 160, 175, 180, 260];
  assert.deepEqual(collectingLooks({ levels, slack: 70 }), [3, 5]);
  assert.deepEqual(collectingLooks({ levels, slack: 70, v8Collections: [0, 0, 0, 1, 1, 1] }), [5]);
});

test("under load, while V8 collects between every two looks, growth never adds a collection", () => {
  fc.assert(
    fc.property(fc.array(fc.nat(10_000), { minLength: 2, maxLength: 60 }), (levels) => {
      const busy = levels.map(() => 1);
      const v8Collections = levels.map((_, look) => look);
      assert.deepEqual(collectingLooks({ levels, busy, slack: 70, v8Collections }), []);
    }),
  );
});

test("a level that only falls, or grows within the slack, is left to V8", () => {
  assert.deepEqual(collectingLooks({ levels: [500, 400, 300, 350, 369, 320, 369], slack: 70 }), []);
});

test("leftovers: a level that stays high is collected after the quiet looks, then ever later", () => {
  // Growth collects at look 2 (250 - 100 > 70); the burst's end leaves 240 with no growth; three
  // looks later the leftovers are collected; 240 stays (it may be live), and is collected again
  // only after twice the quiet looks (6), then four times (12), and so on.
  const levels = [100, 150, 250, ...Array.from({ length: 30 }, () => 240)];
  assert.deepEqual(collectingLooks({ levels, slack: 70, quietLooks: 3 }), [2, 6, 13, 26]);
});

test("garbage that took the place of live data at the same level is collected in time", () => {
  // Subscribers hold 240 when the leftover look comes (look 6: nothing is freed); they leave at
  // look 8 and their memory is garbage at the same level: collected at look 13, down to 110.
  const levels = [100, 150, 250, 240, 240, 240, 240, 240, 240, 240, 240, 240, 240, 240, 110, 110];
  assert.deepEqual(collectingLooks({ levels, slack: 70, quietLooks: 3 }), [2, 6, 13]);
});

test("an unchanged level waits at most MAX_REPEAT_FACTOR quiet waits between collections", () => {
  const levels = [100, 250, ...Array.from({ length: 700 }, () => 240)];
  const calls = collectingLooks({ levels, slack: 70, quietLooks: 3 });
  const gaps = calls.slice(1).map((c, i) => c - (calls[i] as number));
  assert.ok(Math.max(...gaps) <= 3 * MAX_REPEAT_FACTOR + 1, gaps.join(","));
  assert.ok(gaps.at(-1) === 3 * MAX_REPEAT_FACTOR + 1, gaps.join(","));
});

test("under load only buffers count: a heap that grows is V8's to collect, concurrently", () => {
  // The settled level (heap and buffers) grows by 200 while buffers stay flat and the loop is
  // busy: no collection, where a forced one would mark the whole heap in one pause.
  const levels = [100, 150, 200, 250, 300, 300, 300, 300];
  const buffers = [10, 12, 11, 13, 12, 12, 12, 12];
  const busy = levels.map(() => 0.6);
  assert.deepEqual(collectingLooks({ levels, buffers, busy, slack: 70, quietLooks: 3 }), []);
});

test("leftovers wait for a quiet event loop", () => {
  // The level stays 240 after a burst; the loop is busy until look 7, quiet from then on.
  const levels = [100, 150, 250, 240, 240, 240, 240, 240, 240, 240, 240];
  const busy = [0, 0, 0, 0.5, 0.5, 0.5, 0.5, 0.05, 0.05, 0.05, 0.05];
  assert.deepEqual(collectingLooks({ levels, busy, slack: 70, quietLooks: 3 }), [2, 7]);
});

test("never a collection on the look right after one, and each answers a level past the slack", () => {
  fc.assert(
    fc.property(
      fc.array(fc.nat(10_000), { minLength: 2, maxLength: 60 }),
      fc.nat(2_000),
      fc.integer({ min: 1, max: 10 }),
      (levels, slack, quiet) => {
        const calls = collectingLooks({ levels, slack, quietLooks: quiet });
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
