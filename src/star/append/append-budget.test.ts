import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { StarError } from "../errors.ts";
import { AppendBudget, batchMemory } from "./append-budget.ts";

const exhausted = (e: unknown) =>
  e instanceof StarError && e.code === 8 && /--appends-in-flight-mb/.test(e.message);

test("past the bound an append is refused; one alone always goes; a release counts once", () => {
  const b = new AppendBudget(100);
  const big = b.take(1000);
  assert.equal(b.held, 1000);
  assert.throws(() => b.take(1), exhausted);
  big();
  big();
  assert.equal(b.held, 0);
  const a = b.take(60);
  b.take(40);
  assert.throws(() => b.take(1), exhausted);
  a();
  b.take(60);
  assert.equal(b.held, 100);
});

test("a batch counts its content and its records' objects", () => {
  const records = [
    { body: Buffer.alloc(10), headers: [] },
    { body: Buffer.alloc(0), headers: [] },
  ];
  const batch = { records, contentBytes: 10, maxClientTimestamp: undefined };
  assert.equal(batchMemory(batch), 10 + 2 * 200);
});

test("property: held is what was taken and not released, and never passes the bound but alone", () => {
  const op = fc.oneof(
    fc.record({ take: fc.integer({ min: 0, max: 300 }) }),
    fc.record({ release: fc.nat() }),
  );
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 500 }), fc.array(op), (max, ops) => {
      const b = new AppendBudget(max);
      const live: { bytes: number; release: () => void }[] = [];
      for (const o of ops) {
        if ("release" in o) {
          live.splice(o.release % Math.max(1, live.length), 1)[0]?.release();
        } else {
          const held = live.reduce((n, l) => n + l.bytes, 0);
          const fits = held === 0 || held + o.take <= max;
          try {
            live.push({ bytes: o.take, release: b.take(o.take) });
            assert.ok(fits, "taken past the bound");
          } catch (e) {
            assert.ok(!fits && exhausted(e), String(e));
          }
        }
        const held = live.reduce((n, l) => n + l.bytes, 0);
        assert.equal(b.held, held);
        assert.ok(held <= max || live.filter((l) => l.bytes > 0).length === 1);
      }
    }),
  );
});
