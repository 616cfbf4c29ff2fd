import assert from "node:assert/strict";
import { test } from "node:test";
import { singleFlight } from "./unless-running.ts";

function gated(): { task: () => Promise<void>; runs: () => number; finish: (err?: Error) => void } {
  let runs = 0;
  let settle: ((err?: Error) => void) | undefined;
  return {
    task: () => {
      runs += 1;
      return new Promise<void>((resolve, reject) => {
        settle = (err) => (err ? reject(err) : resolve());
      });
    },
    runs: () => runs,
    finish: (err) => settle?.(err),
  };
}

test("calls while a run is in flight share it; the next call after it starts another", async () => {
  const g = gated();
  const round = singleFlight(g.task);
  assert.equal(round.running, false);
  const first = round();
  const second = round();
  assert.equal(second, first);
  assert.equal(g.runs(), 1);
  assert.equal(round.running, true);
  g.finish();
  await first;
  assert.equal(round.running, false);
  const third = round();
  assert.notEqual(third, first);
  assert.equal(g.runs(), 2);
  g.finish();
  await third;
});

test("a failed run is given to its callers, and does not stop the next", async () => {
  const g = gated();
  const round = singleFlight(g.task);
  const failed = round();
  g.finish(new Error("storage refused"));
  await assert.rejects(failed, /storage refused/);
  const next = round();
  assert.equal(g.runs(), 2);
  g.finish();
  await next;
});
