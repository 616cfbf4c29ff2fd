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

test("waiting loops hold no promise of their own: their runs' and their reads' watches", async () => {
  const LOOPS = 200;
  const read = new Promise<string>(() => {});
  let woken = false;
  let waiting = 0;
  const before = livePromises();
  const runs = Array.from({ length: LOOPS }, () => {
    const loop = new ReadLoop();
    const running = loop.run<string>({
      ready: () => !woken,
      reads: () => read,
      wakeAt: () => {
        waiting++;
        return Date.now() + 60_000;
      },
      timer: () => true,
      read: () => false,
    });
    return { loop, running };
  });
  await new Promise((r) => setImmediate(r));
  try {
    assert.equal(waiting, LOOPS);
    // Two per loop (an async loop held four), with room for other tests' promises here.
    const kept = livePromises() - before;
    assert.ok(kept < LOOPS * 3, `${kept} promises held by ${LOOPS} waiting loops`);
  } finally {
    woken = true;
    for (const { loop } of runs) loop.wake();
    await Promise.all(runs.map((r) => r.running));
  }
});

test("a step that throws or a ready that rejects fails the run with its error", async () => {
  const steps = {
    ready: () => true as boolean | Promise<boolean>,
    reads: () => Promise.resolve("a"),
    wakeAt: () => Date.now() + 60_000,
    timer: () => true,
    read: (): boolean => {
      throw new Error("read failed");
    },
  };
  await assert.rejects(new ReadLoop().run<string>(steps), /read failed/);
  steps.ready = () => Promise.reject(new Error("ready failed"));
  await assert.rejects(new ReadLoop().run<string>(steps), /ready failed/);
  steps.ready = () => {
    throw new Error("ready threw");
  };
  await assert.rejects(new ReadLoop().run<string>(steps), /ready threw/);
});
