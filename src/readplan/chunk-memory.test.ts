import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { ChunkMemoryPool, freshMemory, type Lent } from "./chunk-memory.ts";

test("memory is never held by two loans at once, and a loan given back holds nothing", () => {
  const step = fc.oneof(
    fc.record({ take: fc.integer({ min: 1, max: 300_000 }) }),
    fc.record({ give: fc.nat() }),
  );
  fc.assert(
    fc.property(
      fc.array(step, { maxLength: 60 }),
      fc.constantFrom(0, 200_000, 1 << 20),
      (steps, idle) => {
        const pool = new ChunkMemoryPool(idle);
        const live: Lent[] = [];
        const given: Lent[] = [];
        for (const s of steps) {
          if ("take" in s) {
            const lent = pool.take(s.take);
            assert.equal(lent.bytes.length, s.take);
            live.push(lent);
          } else if (live.length > 0) {
            const [lent] = live.splice(s.give % live.length, 1) as [Lent];
            pool.give(lent);
            // A second give of the same loan changes nothing.
            pool.give(lent);
            given.push(lent);
          }
          for (const lent of live) assert.ok(ChunkMemoryPool.holds(lent));
          for (const lent of given) assert.ok(!ChunkMemoryPool.holds(lent));
          const memories = live.map((l) => l.bytes.buffer);
          assert.equal(new Set(memories).size, memories.length);
          assert.ok(pool.idleBytes <= idle);
        }
      },
    ),
    { numRuns: 300 },
  );
});

test("memory given back is lent again for a chunk of a nearby size", () => {
  const pool = new ChunkMemoryPool(4 << 20);
  const first = pool.take(1_050_000);
  pool.give(first);
  const second = pool.take(1_048_600);
  assert.equal(second.bytes.buffer, first.bytes.buffer);
  assert.equal(second.bytes.length, 1_048_600);
  assert.ok(!ChunkMemoryPool.holds(first));
  assert.ok(ChunkMemoryPool.holds(second));
});

test("empty and very large chunks, and memory from no pool, are left to the garbage collector", () => {
  const pool = new ChunkMemoryPool(64 << 20);
  for (const size of [0, 17 << 20]) {
    const lent = pool.take(size);
    pool.give(lent);
    assert.equal(pool.idleBytes, 0);
    assert.ok(ChunkMemoryPool.holds(lent));
  }
  const fresh = freshMemory(Buffer.alloc(10));
  pool.give(fresh);
  assert.ok(ChunkMemoryPool.holds(fresh));
  assert.equal(pool.idleBytes, 0);
});
