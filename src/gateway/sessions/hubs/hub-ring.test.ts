import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import type { Record__Output } from "../../../gen/nova/v1/Record.ts";
import { RECORD_OBJECT_BYTES } from "../../../platform/memory/index.ts";
import { BATCH_OBJECT_BYTES, HubRing } from "./hub-ring.ts";
import { RingBudget } from "./ring-budget.ts";

const records = (from: number, sizes: number[]): Record__Output[] =>
  sizes.map((size, i) => ({
    seq_num: String(from + i),
    timestamp_ms: "0",
    headers: [],
    body: Buffer.alloc(size),
  }));

test("the window holds consecutive batches within its bounds, always the newest, and finds every seq_num in it", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 5 }),
      fc.integer({ min: 1, max: 5000 }),
      fc.nat({ max: 1000 }),
      fc.array(fc.array(fc.nat({ max: 60 }), { minLength: 1, maxLength: 4 }), { maxLength: 30 }),
      (maxBatches, maxBytes, start, batches) => {
        const ring = new HubRing({ maxBatches, maxBytes }, BigInt(start));
        let next = start;
        for (const sizes of batches) {
          const entry = ring.push(records(next, sizes), null);
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
  assert.throws(() => ring.push(records(6, [1]), null), /starts at 6, the ring expects 5/);
  assert.throws(() => ring.push([], null), /needs records/);
  ring.push(records(5, [1, 1]), null);
  ring.reset(100n);
  assert.equal(ring.size, 0);
  assert.ok(ring.contains(100n) && !ring.contains(99n) && !ring.contains(5n));
  assert.equal(ring.find(5n), undefined);
});

test("a batch decoded from a larger buffer is kept in memory of its own, counted as it is held", () => {
  const parent = Buffer.alloc(64 * 1024, 7);
  const received = [0, 1, 2].map((i) => ({
    seq_num: String(i),
    timestamp_ms: "0",
    headers: [{ name: parent.subarray(i, i + 2), value: parent.subarray(10, 13) }],
    body: parent.subarray(100 * i, 100 * i + 100),
  }));
  const ring = new HubRing({ maxBatches: 10, maxBytes: 1 << 20 });
  const entry = ring.push(received, null);
  const content = 3 * (100 + 2 + 3);
  assert.equal(ring.bytes, content + 3 * RECORD_OBJECT_BYTES + BATCH_OBJECT_BYTES);
  for (const r of entry.records) {
    assert.equal(r.body.buffer.byteLength, content, "no record pins the 64 KiB it came in");
    assert.notEqual(r.body.buffer, parent.buffer);
  }
  assert.deepEqual(
    entry.records.map((r) => [r.body, r.headers]),
    received.map((r) => [r.body, r.headers]),
  );
});

test("an encoding made of a batch counts against the window, and pushes the oldest out", () => {
  const one = 100 + RECORD_OBJECT_BYTES + BATCH_OBJECT_BYTES;
  const ring = new HubRing({ maxBatches: 10, maxBytes: 2 * one + 100 });
  const older = ring.push(records(0, [100]), null);
  const newer = ring.push(records(1, [100]), null);
  assert.equal(ring.bytes, 2 * one);
  const rest = newer.batch.shared?.rest(newer.records, null, "base64", "number");
  assert.ok(rest && rest.length > 100);
  assert.equal(rest.buffer.byteLength, rest.length, "an encoding has memory of its own");
  assert.equal(newer.bytes, one + rest.length);
  assert.equal(ring.bytes, one + rest.length, "the older batch left to make room");
  assert.equal(ring.find(0n), undefined);
  assert.equal(ring.start, 1n);
  // An encoding of a batch that already left is not the window's.
  older.batch.shared?.rest(older.records, null, "base64", "number");
  assert.equal(ring.bytes, one + rest.length);
});

test("property: with an age bound, the window holds exactly the newest batch and those younger than the bound", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 1000 }),
      fc.array(fc.nat({ max: 400 }), { minLength: 1, maxLength: 30 }),
      (maxAgeMs, gaps) => {
        const ring = new HubRing({ maxBatches: 1000, maxBytes: 1 << 30, maxAgeMs });
        const times: number[] = [];
        let now = 0;
        for (const [i, gap] of gaps.entries()) {
          now += gap;
          times.push(now);
          ring.push(records(i, [1]), null, now);
          // Kept: the newest, and every batch that came within maxAgeMs of now.
          const kept = times.filter((t, j) => j === times.length - 1 || t >= now - maxAgeMs);
          assert.equal(ring.size, kept.length);
          assert.equal(ring.start, BigInt(times.length - kept.length));
        }
      },
    ),
  );
});

test("property: a trim leaves the window holding exactly what lies at or above it, and its memory", () => {
  fc.assert(
    fc.property(
      fc.nat({ max: 100 }),
      fc.array(fc.array(fc.nat({ max: 50 }), { minLength: 1, maxLength: 4 }), { maxLength: 12 }),
      fc.nat({ max: 160 }),
      (start, batches, trim) => {
        const ring = new HubRing({ maxBatches: 1000, maxBytes: 1 << 30 }, BigInt(start));
        const entries = batches.map((sizes, i) =>
          ring.push(records(start + batches.slice(0, i).flat().length, sizes), null),
        );
        const next = ring.next;
        const before = ring.start;
        ring.trimTo(BigInt(trim));
        const expectedStart =
          BigInt(trim) <= before ? before : BigInt(trim) >= next ? next : BigInt(trim);
        assert.equal(ring.start, expectedStart);
        assert.equal(ring.next, next, "the feed goes on where it was");
        for (let s = start - 1; s <= Number(next); s++) {
          const e = ring.find(BigInt(s));
          if (BigInt(s) < expectedStart || BigInt(s) >= next) assert.equal(e, undefined);
          else assert.equal(e?.records[s - Number(e.first)]?.seq_num, String(s));
        }
        // The memory of the batches still holding a record at or above the trim, no more.
        const kept = entries.filter((e) => e.end > expectedStart && expectedStart < next);
        assert.equal(
          ring.bytes,
          kept.reduce((sum, e) => sum + e.bytes, 0),
        );
        assert.equal(ring.size, kept.length);
        // A trim never moves the window back.
        ring.trimTo(0n);
        assert.equal(ring.start, expectedStart);
      },
    ),
  );
});

test("an encoding of a batch a trim cut in the middle still counts against the window", () => {
  const ring = new HubRing({ maxBatches: 10, maxBytes: 1 << 20 });
  const entry = ring.push(records(0, [100, 100]), null);
  ring.trimTo(1n);
  const held = ring.bytes;
  const rest = entry.batch.shared?.rest(entry.records, null, "base64", "number");
  assert.ok(rest);
  assert.equal(ring.bytes, held + rest.length);
});

test("rings sharing a budget: past it the one over its share drops its oldest; a closed ring leaves the sum", () => {
  const budget = new RingBudget(10_000);
  const busy = new HubRing({ maxBatches: 100, maxBytes: 1 << 20 }, 0n, budget);
  const quiet = new HubRing({ maxBatches: 100, maxBytes: 1 << 20 }, 0n, budget);
  quiet.push(records(0, [500]), null);
  for (let i = 0; i < 10; i++) busy.push(records(i, [1000]), null);
  assert.equal(budget.held, busy.bytes + quiet.bytes);
  assert.ok(budget.held <= 10_000, `${budget.held}`);
  assert.ok(busy.start > 0n, "the busy ring dropped its oldest batches");
  assert.equal(quiet.start, 0n, "the quiet ring, under its share, kept its own");
  assert.ok(busy.find(9n), "the newest batch is kept");
  busy.close();
  assert.equal(budget.held, quiet.bytes);
  quiet.reset(1n);
  assert.equal(budget.held, 0);
});
