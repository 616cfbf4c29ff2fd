import assert from "node:assert/strict";
import { test } from "node:test";
import { FanoutTurns } from "./fanout-turns.ts";

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

test("a turn gives out at most its readers, to every taker together; the next turn gives them again", async () => {
  const turns = new FanoutTurns(5);
  assert.equal(turns.take(3), 3);
  assert.equal(turns.take(3), 2);
  assert.equal(turns.take(1), 0);
  await nextTurn();
  assert.equal(turns.take(10), 5);
});

test("what waits for a later turn runs in order, before what comes after it, and waits again when the turn is spent", async () => {
  const turns = new FanoutTurns(2);
  const served: string[] = [];
  // Each job serves one reader a call until it has served `n`.
  const job = (name: string, n: number) => {
    const go = () => {
      while (n > 0 && turns.take(1) === 1) {
        served.push(name);
        n--;
      }
      if (n > 0) turns.later(go);
    };
    return go;
  };
  job("a", 3)();
  job("b", 2)();
  assert.deepEqual(served, ["a", "a"], "the first turn's two readers");
  await nextTurn();
  assert.deepEqual(served, ["a", "a", "a", "b"]);
  await nextTurn();
  assert.deepEqual(served, ["a", "a", "a", "b", "b"]);
});

test("a long fan-out goes on one turn of the event loop at a time", async () => {
  const turns = new FanoutTurns(1);
  let left = 50;
  const byTurn: number[] = [];
  let turn = 0;
  const go = () => {
    byTurn.push(turn);
    left -= turns.take(left);
    if (left > 0) turns.later(go);
  };
  // Counts the turns, each counted before the fan-out's own part of it.
  const counting = (async () => {
    while (left > 0) {
      await nextTurn();
      turn++;
    }
  })();
  go();
  await counting;
  assert.deepEqual(
    byTurn,
    Array.from({ length: 50 }, (_, i) => i),
    "one reader, and one call, a turn",
  );
});
