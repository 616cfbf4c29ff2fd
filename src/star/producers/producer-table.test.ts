import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { ProducerBudget, ProducerTable } from "./producer-table.ts";

const limits = { ttlMs: 1000, maxPerStream: 2 };
const u64 = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });
/** Any id, the names an object's prototype has among them. */
const id = fc.oneof(
  fc.string({ minLength: 1, maxLength: 8 }),
  fc.constantFrom("__proto__", "constructor", "toString", "hasOwnProperty"),
);

test("property: the stored form gives the same table back, uint64 values exact", () => {
  fc.assert(
    fc.property(fc.array(fc.tuple(id, u64, u64, u64, u64), { maxLength: 10 }), (marks) => {
      const table = new ProducerTable({ ttlMs: 1, maxPerStream: 100 });
      for (const [id, epoch, seq, start, ts] of marks) {
        table.remember({ id, epoch, seq, start, end: start + 1n, timestampMs: ts }, 5);
      }
      const stored = JSON.parse(JSON.stringify(table.toJSON()));
      // Every producer is in the stored form, whatever its id.
      assert.deepEqual(Object.keys(stored).sort(), [...new Set(marks.map((m) => m[0]))].sort());
      assert.deepEqual(new ProducerTable(limits, stored).toJSON(), table.toJSON());
    }),
  );
});

test("a new producer past the cap is refused until one is idle past the TTL", () => {
  const table = new ProducerTable(limits);
  const ack = { seq: 0n, start: 0n, end: 1n, timestampMs: 0n };
  table.remember({ id: "a", epoch: 0n, ...ack }, 0);
  assert.equal(table.admitsNew(10), true);
  // One new producer already on its way takes the last place.
  assert.equal(table.admitsNew(10, 1), false);
  table.remember({ id: "b", epoch: 0n, ...ack }, 500);
  assert.equal(table.admitsNew(1000), false);
  assert.equal(table.size, 2);
  assert.equal(table.admitsNew(1001), true);
  assert.equal(table.get("a"), undefined);
  assert.ok(table.get("b"));
});

test("every stream's table counts against the star's budget; a full budget refuses new producers", () => {
  const budget = new ProducerBudget(1000);
  const shared = { ttlMs: 1000, maxPerStream: 100, budget };
  const a = new ProducerTable(shared);
  const b = new ProducerTable(shared);
  const ack = { seq: 0n, start: 0n, end: 1n, timestampMs: 0n };
  a.remember({ id: "p", epoch: 0n, ...ack }, 500);
  b.remember({ id: "q", epoch: 0n, ...ack }, 500);
  assert.ok(budget.bytes > 0);
  assert.equal(a.admitsNew(10), true);
  assert.equal(a.admitsNew(10, 2), false, "nor two more producers admitted in the same flush");
  for (let i = 0; budget.bytes < budget.maxBytes; i++)
    b.remember({ id: `r${i}`, epoch: 0n, ...ack }, 500);
  assert.equal(a.admitsNew(10), false, "the budget is the star's, not the stream's");
  // A table forgets only its own idle producers; their memory is then the star's again.
  assert.equal(a.admitsNew(1001), false, "b's producers are b's to forget");
  const before = budget.bytes;
  b.expire(1501);
  assert.ok(budget.bytes < before);
  a.release();
  b.release();
  assert.equal(budget.bytes, 0);
  // Released, the entries stay for a last state write; later changes no longer count.
  assert.ok(a.get("p"));
  a.remember({ id: "s", epoch: 0n, ...ack }, 1600);
  assert.equal(budget.bytes, 0);
});
