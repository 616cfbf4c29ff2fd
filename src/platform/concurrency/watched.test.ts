import assert from "node:assert/strict";
import { test } from "node:test";
import { queryObjects } from "node:v8";
import { raceWatched, Watched } from "./watched.ts";

const never = () => new Promise<never>(() => {});
const tick = () => new Promise((resolve) => setImmediate(resolve));

/** Live promises after a full collection. */
function livePromises(): number {
  return queryObjects(Promise, { format: "count" }) as number;
}

test("the first promise to settle wins; of several already settled, the first given", async () => {
  const a = new Watched(never());
  let resolveB!: (v: string) => void;
  const b = new Watched(new Promise<string>((r) => (resolveB = r)));
  const race = raceWatched([a, b]);
  resolveB("b");
  assert.equal(await race, "b");

  const c = new Watched(Promise.resolve("c"));
  const d = new Watched(Promise.resolve("d"));
  await tick();
  assert.equal(await raceWatched([d, c]), "d");
  assert.equal(await raceWatched([c, d]), "c");
});

test("a rejection is the race's; take() throws it, and a pending Watched refuses take()", async () => {
  const boom = new Error("boom");
  const failed = new Watched(Promise.reject(boom));
  await assert.rejects(raceWatched([new Watched(never()), failed]), (e) => e === boom);
  assert.throws(
    () => failed.take(),
    (e) => e === boom,
  );
  assert.throws(() => new Watched(never()).take(), /has not settled/);
});

test("what arm starts can win; it is stopped when a promise wins first, even at once", async () => {
  const pending = new Watched(never());
  const timed = raceWatched<never, "timer">([pending], (settle) => {
    const timer = setTimeout(() => settle("timer"), 1);
    return () => clearTimeout(timer);
  });
  assert.equal(await timed, "timer");

  let stopped = 0;
  const ready = new Watched(Promise.resolve(1));
  await tick();
  const won = raceWatched([ready], () => () => stopped++);
  assert.equal(await won, 1);
  assert.equal(stopped, 0, "nothing was armed: the promise had settled");

  let resolve!: (v: number) => void;
  const later = new Watched(new Promise<number>((r) => (resolve = r)));
  const race = raceWatched<number, "other">([later], () => () => stopped++);
  resolve(2);
  assert.equal(await race, 2);
  assert.equal(stopped, 1);

  const atOnce = raceWatched<never, "now">([new Watched(never())], (settle) => {
    settle("now");
    return () => stopped++;
  });
  assert.equal(await atOnce, "now");
  assert.equal(stopped, 2, "a settle inside arm still stops what arm started");
});

test("racing one pending promise many times keeps nothing per race, where Promise.race keeps each", async () => {
  const RACES = 500;
  const pendingRead = never();
  const watched = new Watched(pendingRead);
  const timer = <O>(settle: (o: O) => void, value: O) => {
    const t = setTimeout(() => settle(value), 0);
    return () => clearTimeout(t);
  };
  const before = livePromises();
  for (let i = 0; i < RACES; i++) {
    assert.equal(
      await raceWatched<never, "timer">([watched], (settle) => timer(settle, "timer")),
      "timer",
    );
  }
  const withWatched = livePromises() - before;
  // The control: the same loop with Promise.race, so that the count is known to see a leak.
  const control = livePromises();
  for (let i = 0; i < RACES; i++) {
    const t = new Promise<string>((resolve) => setTimeout(() => resolve("timer"), 0));
    assert.equal(await Promise.race([pendingRead, t]), "timer");
  }
  const withRace = livePromises() - control;
  assert.ok(withRace >= RACES, `Promise.race kept ${withRace}`);
  assert.ok(withWatched < RACES / 10, `raceWatched kept ${withWatched}`);
});
