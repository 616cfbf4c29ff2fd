// On Node's mock clock (setTimeout and Date), so a loaded machine's late timers cannot reorder
// what is checked; a single long tick of the clock is how a stalled event loop is played.
import assert from "node:assert/strict";
import { type TestContext, test } from "node:test";
import { TimerWheel, type WheelEntry } from "./timer-wheel.ts";

const START = 1_000_000;

function mockClock(t: TestContext): void {
  t.mock.timers.enable({ apis: ["setTimeout", "Date"], now: START });
}

/** An entry that notes, in `log`, its name and the clock's time when it fired. */
function entry(log: [string, number][], name: string): WheelEntry {
  return { onTimer: () => log.push([name, Date.now()]) };
}

test("deadlines fire once, never before their time, at most a tick late, in order", (t) => {
  mockClock(t);
  const wheel = new TimerWheel(10);
  const log: [string, number][] = [];
  const delays = [60, 20, 40, 25];
  for (const delay of delays) wheel.schedule(entry(log, String(delay)), START + delay);
  assert.equal(wheel.size, 4);
  for (let ms = 0; ms < 100; ms++) t.mock.timers.tick(1);
  assert.deepEqual(
    log.map(([name]) => name),
    ["20", "25", "40", "60"],
  );
  for (const [name, at] of log) {
    const due = START + Number(name);
    assert.ok(at >= due && at < due + 10, `${name} fired at +${at - START}`);
  }
  assert.equal(wheel.size, 0);
});

test("after a stall, the deadlines that came meanwhile fire in the order of their ticks", (t) => {
  mockClock(t);
  const wheel = new TimerWheel(10);
  const log: [string, number][] = [];
  for (const delay of [60, 20, 40]) wheel.schedule(entry(log, String(delay)), START + delay);
  t.mock.timers.tick(100);
  assert.deepEqual(
    log.map(([name]) => name),
    ["20", "40", "60"],
  );
});

test("a cancelled deadline never fires; an earlier one scheduled later re-arms the timer", (t) => {
  mockClock(t);
  const wheel = new TimerWheel(10);
  const log: [string, number][] = [];
  const cancelled = entry(log, "cancelled");
  const tick = wheel.schedule(cancelled, START + 30);
  wheel.schedule(entry(log, "late"), START + 80);
  wheel.cancel(entry(log, "another"), tick);
  assert.equal(wheel.size, 2, "cancelling an entry not in that tick changes nothing");
  wheel.cancel(cancelled, tick);
  assert.equal(wheel.size, 1);
  // Armed for 80 ms from now: a deadline before it must not wait for that.
  wheel.schedule(entry(log, "early"), START + 20);
  t.mock.timers.tick(20);
  assert.deepEqual(log, [["early", START + 20]]);
  t.mock.timers.tick(100);
  assert.deepEqual(log, [
    ["early", START + 20],
    ["late", START + 120],
  ]);
});

test("an entry scheduled while the wheel fires waits for its own deadline, or fires next if due", (t) => {
  mockClock(t);
  const wheel = new TimerWheel(10);
  const fired: string[] = [];
  const second: WheelEntry = { onTimer: () => fired.push("second") };
  let firsts = 0;
  const first: WheelEntry = {
    onTimer() {
      fired.push("first");
      if (++firsts > 1) return;
      wheel.schedule(second, Date.now() + 30);
      // Already due: it fires on the timer's next turn, before `second`.
      wheel.schedule(first, Date.now() - 1);
    },
  };
  wheel.schedule(first, Date.now());
  t.mock.timers.tick(0);
  assert.deepEqual(fired, ["first", "first"]);
  t.mock.timers.tick(30);
  assert.deepEqual(fired, ["first", "first", "second"]);
  assert.equal(wheel.size, 0);
});
