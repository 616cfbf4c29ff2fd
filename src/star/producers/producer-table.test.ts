import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { ProducerTable } from "./producer-table.ts";

const limits = { ttlMs: 1000, maxPerStream: 2 };
const u64 = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });

test("property: the stored form gives the same table back, uint64 values exact", () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.string({ minLength: 1, maxLength: 8 }), u64, u64, u64, u64), {
        maxLength: 10,
      }),
      (marks) => {
        const table = new ProducerTable({ ttlMs: 1, maxPerStream: 100 });
        for (const [id, epoch, seq, start, ts] of marks) {
          table.remember(id, epoch, { seq, start, end: start + 1n, timestampMs: ts }, 5);
        }
        const stored = JSON.parse(JSON.stringify(table.toJSON()));
        assert.deepEqual(new ProducerTable(limits, stored).toJSON(), table.toJSON());
      },
    ),
  );
});

test("a new producer past the cap is refused until one is idle past the TTL", () => {
  const table = new ProducerTable(limits);
  const ack = { seq: 0n, start: 0n, end: 1n, timestampMs: 0n };
  table.remember("a", 0n, ack, 0);
  assert.equal(table.admitsNew(10), true);
  // One new producer already on its way takes the last place.
  assert.equal(table.admitsNew(10, 1), false);
  table.remember("b", 0n, ack, 500);
  assert.equal(table.admitsNew(1000), false);
  assert.equal(table.size, 2);
  assert.equal(table.admitsNew(1001), true);
  assert.equal(table.get("a"), undefined);
  assert.ok(table.get("b"));
});
