import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { ChunkMemoryPool, freshMemory, type Lent, memoryClass } from "./chunk-memory.ts";

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

test("memory classes: at least the size, at most 1/16 more (or 1 KiB), never fewer classes", () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 16 << 20 }), (size) => {
      const cls = memoryClass(size);
      assert.ok(cls >= size);
      assert.ok(cls - size < Math.max(1024, size / 16 + 1));
      assert.ok(memoryClass(cls) === cls);
    }),
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

test("a loan counts the memory it holds on to, not just the chunk's bytes", () => {
  const pool = new ChunkMemoryPool(0);
  assert.equal(ChunkMemoryPool.bytesHeld(pool.take(100)), 1024);
  assert.equal(ChunkMemoryPool.bytesHeld(pool.take(1_050_000)), memoryClass(1_050_000));
  assert.equal(ChunkMemoryPool.bytesHeld(freshMemory(Buffer.alloc(100))), 100);
});
