import assert from "node:assert/strict";
import { test } from "node:test";
import { waitFor } from "../../../test/harness/wait.ts";
import { TimerWheel, type WheelEntry } from "./timer-wheel.ts";

/** An entry that notes when it fired. */
function entry(log: number[]): WheelEntry & { firedAt: number | undefined } {
  const e = {
    firedAt: undefined as number | undefined,
    onTimer() {
      e.firedAt = Date.now();
      log.push(Date.now());
    },
  };
  return e;
}

test("deadlines fire once, never before their time, in the order of their ticks", async () => {
  const wheel = new TimerWheel(10);
  const log: number[] = [];
  const start = Date.now();
  const entries = [60, 20, 40, 20].map((delay) => ({ delay, e: entry(log) }));
  for (const { delay, e } of entries) wheel.schedule(e, start + delay);
  assert.equal(wheel.size, 4);
  await waitFor(() => log.length === 4);
  for (const { delay, e } of entries) {
    assert.ok((e.firedAt as number) >= start + delay, `fired ${e.firedAt} before ${start + delay}`);
  }
  assert.deepEqual(
    [...log].sort((a, b) => a - b),
    log,
    "in order",
  );
  assert.equal(wheel.size, 0);
});

test("a cancelled deadline never fires; an earlier one scheduled later re-arms the timer", async () => {
  const wheel = new TimerWheel(10);
  const log: number[] = [];
  const cancelled = entry(log);
  const late = entry(log);
  const start = Date.now();
  const tick = wheel.schedule(cancelled, start + 30);
  wheel.schedule(late, start + 80);
  wheel.cancel(cancelled, tick);
  // Armed for 80 ms from now: a deadline before it must not wait for that.
  const early = entry(log);
  wheel.schedule(early, start + 20);
  await waitFor(() => late.firedAt !== undefined);
  assert.equal(cancelled.firedAt, undefined);
  assert.ok((early.firedAt as number) < (late.firedAt as number));
  assert.equal(log.length, 2);
});

test("an entry scheduled while the wheel fires waits for its own deadline, or fires next if due", async () => {
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
  await waitFor(() => fired.length === 3);
  assert.deepEqual(fired, ["first", "first", "second"]);
  assert.equal(wheel.size, 0);
});
