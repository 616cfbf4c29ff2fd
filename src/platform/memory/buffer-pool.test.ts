import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { BufferPool } from "./buffer-pool.ts";

const MiB = 1024 * 1024;

test("a given-back buffer's memory is lent again, never to two holders at once", () => {
  const pool = new BufferPool(64 * MiB);
  const a = pool.take(MiB - 5);
  assert.equal(a.length, MiB - 5);
  const b = pool.take(MiB);
  assert.notEqual(a.buffer, b.buffer);
  pool.give(a);
  const c = pool.take(700 * 1024);
  assert.equal(c.buffer, a.buffer, "same size class: reused");
  assert.equal(c.length, 700 * 1024);
  const d = pool.take(MiB);
  assert.notEqual(d.buffer, b.buffer, "b is still out");
  assert.notEqual(d.buffer, c.buffer, "c is still out");
});

test("giving back twice, or a buffer not from the pool, changes nothing", () => {
  const pool = new BufferPool(64 * MiB);
  const a = pool.take(MiB);
  pool.give(a);
  pool.give(a);
  assert.equal(pool.idleBytes, MiB);
  const x = pool.take(MiB);
  const y = pool.take(MiB);
  assert.notEqual(x.buffer, y.buffer, "a second give must not lend the memory twice");
  pool.give(Buffer.alloc(MiB));
  pool.give(Buffer.from("small"));
  assert.equal(pool.idleBytes, 0);
});

test("sizes outside the pooled classes are plain allocations", () => {
  const pool = new BufferPool(64 * MiB);
  for (const size of [0, 1, 1000, 9 * MiB]) {
    const b = pool.take(size);
    assert.equal(b.length, size);
    pool.give(b);
  }
  assert.equal(pool.idleBytes, 0);
});

test("idle memory never exceeds the bound, and buffers hold exactly what was asked", () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 3 * MiB })), { maxLength: 60 }),
      (ops) => {
        const pool = new BufferPool(4 * MiB);
        const out: Buffer[] = [];
        for (const [give, size] of ops) {
          if (give && out.length > 0) pool.give(out.shift() as Buffer);
          else {
            const b = pool.take(size);
            assert.equal(b.length, size);
            for (const other of out) {
              // Small ones come from Node's shared 8 KiB slab; pooled ones are never shared.
              if (b.length >= 64 * 1024) assert.notEqual(b.buffer, other.buffer);
            }
            out.push(b);
          }
          assert.ok(pool.idleBytes <= 4 * MiB);
        }
      },
    ),
  );
});

test("heldBy: a lent buffer keeps its whole size class alive; any other buffer its length", () => {
  const pool = new BufferPool(1 << 24);
  const lent = pool.take(100 * 1024);
  assert.equal(lent.length, 100 * 1024);
  assert.equal(pool.heldBy(lent), 128 * 1024);
  assert.equal(pool.heldBy(Buffer.alloc(10)), 10);
  pool.give(lent);
  assert.equal(pool.heldBy(lent), 100 * 1024, "given back: no longer the pool's loan");
});
