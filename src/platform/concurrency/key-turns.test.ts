import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { KeyTurns } from "./key-turns.ts";

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

test("turns on one key run one at a time, in the order taken", async () => {
  const turns = new KeyTurns();
  const log: string[] = [];
  const turn = (name: string) =>
    turns.take("k", async () => {
      log.push(`${name} start`);
      await tick();
      log.push(`${name} end`);
      return name;
    });
  assert.deepEqual(await Promise.all([turn("a"), turn("b"), turn("c")]), ["a", "b", "c"]);
  assert.deepEqual(log, ["a start", "a end", "b start", "b end", "c start", "c end"]);
  assert.equal(turns.busyKeys, 0);
});

test("turns on different keys overlap", async () => {
  const turns = new KeyTurns();
  let release = () => {};
  const held = turns.take("a", () => new Promise<void>((resolve) => (release = resolve)));
  // "b" runs to its end while "a" is still held.
  assert.equal(await turns.take("b", async () => "b"), "b");
  release();
  await held;
  assert.equal(turns.busyKeys, 0);
});

test("a failed turn passes its error on and lets the next turn run", async () => {
  const turns = new KeyTurns();
  const failed = turns.take("k", async () => {
    throw new Error("no");
  });
  const next = turns.take("k", async () => "next");
  await assert.rejects(failed, /no/);
  assert.equal(await next, "next");
  assert.equal(turns.busyKeys, 0);
});

test("property: on every key, no two turns overlap and all run, whatever the interleaving", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.record({ key: fc.constantFrom("a", "b", "c"), ticks: fc.nat(3) }), {
        maxLength: 20,
      }),
      async (works) => {
        const turns = new KeyTurns();
        const running = new Map<string, number>();
        let overlaps = 0;
        const results = await Promise.all(
          works.map(({ key, ticks }, i) =>
            turns.take(key, async () => {
              running.set(key, (running.get(key) ?? 0) + 1);
              if ((running.get(key) ?? 0) > 1) overlaps++;
              for (let t = 0; t < ticks; t++) await tick();
              running.set(key, (running.get(key) ?? 0) - 1);
              return i;
            }),
          ),
        );
        assert.equal(overlaps, 0);
        assert.deepEqual(
          results,
          works.map((_, i) => i),
        );
        assert.equal(turns.busyKeys, 0);
      },
    ),
  );
});
