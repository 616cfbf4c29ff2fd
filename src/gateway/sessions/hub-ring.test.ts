import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import type { Record__Output } from "../../gen/nova/v1/Record.ts";
import { HubRing } from "./hub-ring.ts";

const records = (from: number, sizes: number[]): Record__Output[] =>
  sizes.map((size, i) => ({
    seq_num: String(from + i),
    timestamp_ms: "0",
    headers: [],
    body: Buffer.alloc(size),
  }));
const sizeOf = (r: Record__Output) => r.body.length;

test("the window holds consecutive batches within its bounds, always the newest, and finds every seq_num in it", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 5 }),
      fc.integer({ min: 1, max: 200 }),
      fc.nat({ max: 1000 }),
      fc.array(fc.array(fc.nat({ max: 60 }), { minLength: 1, maxLength: 4 }), { maxLength: 30 }),
      (maxBatches, maxBytes, start, batches) => {
        const ring = new HubRing({ maxBatches, maxBytes }, BigInt(start));
        let next = start;
        for (const sizes of batches) {
          const entry = ring.push(records(next, sizes), null, sizeOf);
          next += sizes.length;
          assert.equal(ring.next, BigInt(next));
          assert.equal(ring.find(entry.first), entry, "the newest batch is always kept");
          assert.ok(ring.size >= 1 && (ring.size <= maxBatches || maxBatches < 1));
          assert.ok(ring.size === 1 || ring.bytes <= maxBytes);
          // Every seq_num in the window is found in the batch that holds it; none outside.
          for (let s = Number(ring.start) - 2; s < next + 2; s++) {
            const e = ring.find(BigInt(s));
            if (s < Number(ring.start) || s >= next) assert.equal(e, undefined);
            else {
              assert.ok(e && e.first <= BigInt(s) && BigInt(s) < e.end);
              assert.equal(e.records[s - Number(e.first)]?.seq_num, String(s));
            }
          }
          assert.ok(ring.contains(ring.start) && ring.contains(ring.next));
          assert.ok(!ring.contains(ring.next + 1n));
        }
      },
    ),
  );
});

test("a batch that does not start at the window's next is refused; reset moves the window", () => {
  const ring = new HubRing({ maxBatches: 4, maxBytes: 1000 }, 5n);
  assert.throws(() => ring.push(records(6, [1]), null, sizeOf), /starts at 6, the ring expects 5/);
  assert.throws(() => ring.push([], null, sizeOf), /needs records/);
  ring.push(records(5, [1, 1]), null, sizeOf);
  ring.reset(100n);
  assert.equal(ring.size, 0);
  assert.ok(ring.contains(100n) && !ring.contains(99n) && !ring.contains(5n));
  assert.equal(ring.find(5n), undefined);
});
