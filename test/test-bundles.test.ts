import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { packFiles } from "../scripts/test-bundles.ts";

const timed = fc.uniqueArray(fc.tuple(fc.string({ minLength: 1 }), fc.nat({ max: 100_000 })), {
  selector: ([file]) => file,
  maxLength: 40,
});

test("every file is in exactly one group, and a group over capacity is one file", () => {
  fc.assert(
    fc.property(timed, fc.integer({ min: 0, max: 200_000 }), (pairs, capacity) => {
      const ms = new Map(pairs);
      const groups = packFiles([...ms.keys()], (f) => ms.get(f) ?? 0, capacity);
      assert.deepEqual(groups.flat().sort(), [...ms.keys()].sort());
      for (const group of groups) {
        assert.ok(group.length > 0);
        const sum = group.reduce((s, f) => s + (ms.get(f) ?? 0), 0);
        if (group.length > 1) assert.ok(sum <= capacity, `${sum} > ${capacity}`);
      }
    }),
  );
});

test("groups come longest first", () => {
  fc.assert(
    fc.property(timed, fc.integer({ min: 0, max: 200_000 }), (pairs, capacity) => {
      const ms = new Map(pairs);
      const sums = packFiles([...ms.keys()], (f) => ms.get(f) ?? 0, capacity).map((g) =>
        g.reduce((s, f) => s + (ms.get(f) ?? 0), 0),
      );
      assert.deepEqual(
        sums,
        [...sums].sort((a, b) => b - a),
      );
    }),
  );
});

test("known small cases", () => {
  const ms: Record<string, number> = { a: 50, b: 30, c: 30, d: 20, e: 90, f: 5 };
  const at = (f: string) => ms[f] ?? 0;
  assert.deepEqual(packFiles(Object.keys(ms), at, 60), [["e"], ["b", "c"], ["a", "f"], ["d"]]);
  assert.deepEqual(packFiles(Object.keys(ms), at, 0), [["e"], ["a"], ["b"], ["c"], ["d"], ["f"]]);
  assert.deepEqual(
    packFiles(["x", "y"], () => 10, 1_000),
    [["x", "y"]],
  );
  assert.deepEqual(packFiles([], at, 60), []);
});
