import assert from "node:assert/strict";
import { test } from "node:test";
import { queryObjects } from "node:v8";
import { ReadLoop } from "./read-loop.ts";

const livePromises = () => queryObjects(Promise, { format: "count" }) as number;

test("a read that settles is handed over; the timer fires while none does; a wake-up asks ready again", async () => {
  const loop = new ReadLoop();
  let resolveRead!: (v: string) => void;
  let read = new Promise<string>((r) => (resolveRead = r));
  const seen: string[] = [];
  let readies = 0;
  let timers = 0;
  await loop.run<string>({
    ready: () => {
      readies++;
      // After the timer: a wake-up, then the read.
      if (readies === 2) setImmediate(() => loop.wake());
      if (readies === 3) setImmediate(() => resolveRead("a"));
      return true;
    },
    reads: () => read,
    wakeAt: () => (timers === 0 ? Date.now() : Date.now() + 60_000),
    timer: () => {
      timers++;
      return true;
    },
    read: (got) => {
      seen.push(got);
      read = new Promise<string>(() => {});
      return seen.length < 1;
    },
  });
  assert.deepEqual(seen, ["a"]);
  assert.equal(timers, 1);
  assert.equal(readies, 3);
});

test("a read pending across many waits (its batches tapped) keeps nothing per wait", async () => {
  const WAITS = 400;
  const loop = new ReadLoop();
  const pending = new Promise<string>(() => {});
  let timers = 0;
  const before = livePromises();
  await loop.run<string>({
    ready: () => true,
    reads: () => pending,
    wakeAt: () => Date.now(),
    timer: () => ++timers < WAITS,
    read: () => false,
  });
  assert.equal(timers, WAITS);
  const kept = livePromises() - before;
  assert.ok(kept < WAITS / 10, `${kept} promises kept over ${WAITS} waits`);
});
