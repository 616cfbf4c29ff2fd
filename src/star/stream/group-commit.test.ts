// GroupCommit on a clock the tests move: the batch window elapses only when that clock does; the
// byte and record limits, an express stream and a fence first in line make a commit due at once;
// one flush at a time, what arrived meanwhile taken by the next, on a window that starts when the
// flush ends; what fits in one commit; close returning what waits and stopping the timer.
import assert from "node:assert/strict";
import { test } from "node:test";
import { type BatchLimits, GroupCommit, type Size } from "./group-commit.ts";
import { ManualClock } from "./manual-clock.test-helper.ts";

const WINDOW: BatchLimits = { immediate: false, maxBytes: 100, maxRecords: 10, maxDelayMs: 50 };

const one = (bytes = 1): Size => ({ bytes, records: 1 });

/**
 * A group commit over `clock` whose flushes take everything waiting, each flush's items a list
 * in `flushes`; a flush holds until `release()` when `hold` is set.
 */
function grouped(clock: ManualClock, limits: BatchLimits = WINDOW, hold = false) {
  const flushes: string[][] = [];
  let release = () => {};
  const gc: GroupCommit<string> = new GroupCommit<string>({
    clock,
    limits: () => limits,
    flush: async () => {
      const taken: string[] = [];
      while (gc.next !== undefined) taken.push(gc.take() as string);
      flushes.push(taken);
      if (hold) await new Promise<void>((resolve) => (release = resolve));
    },
  });
  return { gc, flushes, release: () => release() };
}

/** Lets a finished flush's continuation (the next kick) run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

test("the batch window elapses on the injected clock, and only when it moves", () => {
  const clock = new ManualClock();
  const { gc, flushes } = grouped(clock);
  gc.push("a", one());
  gc.push("b", one());
  assert.equal(clock.timers, 1, "the window's timer is the clock's");
  clock.advance(49);
  assert.deepEqual(flushes, []);
  clock.advance(1);
  assert.deepEqual(flushes, [["a", "b"]]);
  assert.equal(clock.timers, 0);
});

test("reaching the byte or record limit makes a commit due at once, stopping the window's timer", () => {
  const clock = new ManualClock();
  const bytes = grouped(clock);
  bytes.gc.push("a", one(60));
  assert.equal(clock.timers, 1);
  bytes.gc.push("b", one(40));
  assert.deepEqual(bytes.flushes, [["a", "b"]]);
  assert.equal(clock.timers, 0);
  const records = grouped(clock, { ...WINDOW, maxRecords: 3 });
  records.gc.push("a", { bytes: 1, records: 2 });
  records.gc.push("b", one());
  assert.deepEqual(records.flushes, [["a", "b"]]);
});

test("an express stream commits every item at once; a fence first in line is due at once", () => {
  const clock = new ManualClock();
  const express = grouped(clock, { ...WINDOW, immediate: true });
  express.gc.push("a", one());
  assert.deepEqual(express.flushes, [["a"]]);
  const fenced = grouped(clock);
  fenced.gc.push("fence");
  assert.deepEqual(fenced.flushes, [["fence"]]);
  assert.equal(clock.timers, 0);
});

test("one flush at a time: what arrives during one goes in the next, even past the limits", async () => {
  const clock = new ManualClock();
  const { gc, flushes, release } = grouped(clock, WINDOW, true);
  gc.push("fence");
  gc.push("a", one());
  gc.push("b", one(200));
  assert.deepEqual(flushes, [["fence"]], "over the byte limit, but a flush is under way");
  release();
  await settle();
  assert.deepEqual(flushes, [["fence"], ["a", "b"]]);
});

test("what waited through a flush starts its window when the flush ends", async () => {
  const clock = new ManualClock();
  const { gc, flushes, release } = grouped(clock, WINDOW, true);
  gc.push("fence");
  gc.push("a", one());
  clock.advance(100);
  release();
  await settle();
  assert.deepEqual(flushes, [["fence"]], "not due for the time it waited behind the flush");
  clock.advance(49);
  assert.deepEqual(flushes, [["fence"]]);
  clock.advance(1);
  assert.deepEqual(flushes, [["fence"], ["a"]]);
});

test("fits: an item joins a commit while the bytes and records stay within the limits", () => {
  const { gc } = grouped(new ManualClock());
  assert.equal(gc.fits({ bytes: 60, records: 9 }, one(40)), true);
  assert.equal(gc.fits({ bytes: 61, records: 1 }, one(40)), false);
  assert.equal(gc.fits({ bytes: 0, records: 10 }, one(0)), false);
});

test("close returns what waits, in order, and stops the window's timer", () => {
  const clock = new ManualClock();
  const { gc, flushes } = grouped(clock);
  gc.push("a", one());
  gc.push("b", one());
  assert.equal(clock.timers, 1);
  assert.deepEqual(gc.close(), ["a", "b"]);
  assert.equal(clock.timers, 0);
  clock.advance(1000);
  assert.deepEqual(flushes, []);
  assert.equal(gc.next, undefined);
});
