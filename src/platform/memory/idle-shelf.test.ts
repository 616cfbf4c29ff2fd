import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { IdleShelf } from "./idle-shelf.ts";

test("takes back only what was kept, by size, and never keeps more than its bound", () => {
  const op = fc.oneof(
    fc.record({ keep: fc.constantFrom(1, 2, 4) }),
    fc.record({ take: fc.constantFrom(1, 2, 4) }),
  );
  fc.assert(
    fc.property(fc.array(op, { maxLength: 40 }), fc.nat(10), (ops, max) => {
      const shelf = new IdleShelf<{ size: number }>(max);
      const kept = new Map<number, number>();
      for (const o of ops) {
        if ("keep" in o) {
          const before = shelf.bytes;
          shelf.keep(o.keep, { size: o.keep });
          if (shelf.bytes > before) kept.set(o.keep, (kept.get(o.keep) ?? 0) + 1);
          else assert.ok(before + o.keep > max);
        } else {
          const item = shelf.take(o.take);
          const n = kept.get(o.take) ?? 0;
          assert.equal(item === undefined, n === 0);
          if (item) {
            assert.equal(item.size, o.take);
            kept.set(o.take, n - 1);
          }
        }
        assert.ok(shelf.bytes <= max);
        assert.equal(
          shelf.bytes,
          [...kept].reduce((sum, [size, n]) => sum + size * n, 0),
        );
      }
    }),
  );
});
