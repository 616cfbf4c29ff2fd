import assert from "node:assert/strict";
import { test } from "node:test";
import { unlessRunning } from "./unless-running.ts";

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

test("a call while a run is in flight does nothing; the next call after it runs again", async () => {
  const g = gated();
  const round = unlessRunning(g.task);
  const first = round();
  await round();
  assert.equal(g.runs(), 1, "the second call started nothing, and resolved at once");
  g.finish();
  await first;
  const third = round();
  assert.equal(g.runs(), 2);
  g.finish();
  await third;
});

test("a failed run fails its own call only, and does not stop the next", async () => {
  const g = gated();
  const round = unlessRunning(g.task);
  const failed = round();
  await round();
  g.finish(new Error("storage refused"));
  await assert.rejects(failed, /storage refused/);
  const next = round();
  assert.equal(g.runs(), 2);
  g.finish();
  await next;
});
