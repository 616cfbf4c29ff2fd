import assert from "node:assert/strict";
import { test } from "node:test";
import { KeyedLock } from "./keyed-lock.ts";

test("runs work for one key one at a time, in order, even after a failure", async () => {
  const lock = new KeyedLock();
  const log: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  const a = lock.run("k", async () => {
    log.push("a-start");
    await gate;
    log.push("a-end");
    throw new Error("a failed");
  });
  const b = lock.run("k", async () => {
    log.push("b");
    return 2;
  });
  const c = lock.run("other", async () => {
    log.push("c");
    return 3;
  });
  assert.equal(await c, 3);
  release();
  await assert.rejects(a, /a failed/);
  assert.equal(await b, 2);
  assert.deepEqual(log, ["a-start", "c", "a-end", "b"]);
});
