// AppendPacer on a clock the tests move: a burst over the rate held and released in arrival order
// on one timer, a refusal past the wait bound that changes nothing, a fence behind a held batch,
// rate 0, and close returning what is held and stopping the timer.
import assert from "node:assert/strict";
import { test } from "node:test";
import { AppendPacer } from "./append-pacer.ts";
import { ManualClock } from "./manual-clock.test-helper.ts";

/** A pacer over `clock` whose released items land in `released`. */
function pacer(clock: ManualClock, maxWaitMs: number) {
  const released: string[] = [];
  const p = new AppendPacer<string>({ clock, maxWaitMs, release: (item) => released.push(item) });
  return { p, released };
}

test("a burst over the rate is held on one timer and released in arrival order as the clock moves", () => {
  const clock = new ManualClock();
  const { p, released } = pacer(clock, 2000);
  // 1000 tokens a second: a and b at once, c 200 ms later, d 600 ms later.
  for (const name of ["a", "b", "c", "d"]) assert.equal(p.batch(name, 400, 1000), undefined);
  assert.deepEqual(released, ["a", "b"]);
  assert.equal(clock.timers, 1, "one timer for the held items, not one each");
  clock.advance(199);
  assert.deepEqual(released, ["a", "b"]);
  clock.advance(1);
  assert.deepEqual(released, ["a", "b", "c"]);
  clock.advance(400);
  assert.deepEqual(released, ["a", "b", "c", "d"]);
  assert.equal(clock.timers, 0);
});

test("a batch the cap would hold past the bound is refused with the retry time, changing nothing", () => {
  const clock = new ManualClock();
  const { p, released } = pacer(clock, 500);
  p.batch("a", 1000, 1000);
  assert.deepEqual(p.batch("b", 1000, 1000), { retryAfterMs: 500 });
  assert.equal(clock.timers, 0, "nothing held");
  clock.advance(500);
  // Retried when it said: held the 500 ms left, as if the refusal had never been.
  assert.equal(p.batch("b", 1000, 1000), undefined);
  clock.advance(499);
  assert.deepEqual(released, ["a"]);
  clock.advance(1);
  assert.deepEqual(released, ["a", "b"]);
});

test("a fence costs nothing but is released after the batch held before it", () => {
  const clock = new ManualClock();
  const { p, released } = pacer(clock, 5000);
  p.batch("a", 1000, 1000);
  p.batch("b", 500, 1000);
  p.fence("fence");
  assert.deepEqual(released, ["a"]);
  clock.advance(500);
  assert.deepEqual(released, ["a", "b", "fence"]);
  // Nothing held: a fence goes at once.
  p.fence("again");
  assert.deepEqual(released, ["a", "b", "fence", "again"]);
});

test("at rate 0 (unlimited) everything is released at once, on no timer", () => {
  const clock = new ManualClock();
  const { p, released } = pacer(clock, 0);
  for (let i = 0; i < 10; i++) p.batch(String(i), 1 << 30, 0);
  assert.equal(released.length, 10);
  assert.equal(clock.timers, 0);
});

test("close returns the held items in order and stops the timer", () => {
  const clock = new ManualClock();
  const { p, released } = pacer(clock, 5000);
  p.batch("a", 1000, 1000);
  p.batch("b", 10, 1000);
  p.fence("fence");
  assert.equal(clock.timers, 1);
  assert.deepEqual(p.close(), ["b", "fence"]);
  assert.equal(clock.timers, 0);
  clock.advance(10_000);
  assert.deepEqual(released, ["a"]);
});
