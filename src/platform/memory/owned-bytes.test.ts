import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { compactRecords, heldBytes, RECORD_OBJECT_BYTES, recordViews } from "./owned-bytes.ts";

/** Records whose bytes are views at random places of one shared parent buffer. */
const recordsIn = (parentBytes: number) =>
  fc
    .array(
      fc.record({
        body: fc.tuple(fc.nat(parentBytes), fc.nat(300)),
        headers: fc.array(fc.tuple(fc.nat(parentBytes), fc.nat(20), fc.nat(20)), {
          maxLength: 3,
        }),
      }),
      { maxLength: 20 },
    )
    .map((specs) => {
      const parent = Buffer.from(Array.from({ length: parentBytes }, (_, i) => i % 251));
      const view = (at: number, n: number) => parent.subarray(at, Math.min(parentBytes, at + n));
      return specs.map((s, i) => ({
        seq: i,
        body: view(...s.body),
        headers: s.headers.map(([at, n, m]) => ({ name: view(at, n), value: view(at, m) })),
      }));
    });

test("compacted records carry the same bytes and fields, and hold at most twice their size", () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 70_000 }).chain(recordsIn), (records) => {
      const { records: out, held } = compactRecords(records);
      const total = records.flatMap((r) => [...recordViews(r)]).reduce((n, v) => n + v.length, 0);
      assert.equal(out.length, records.length);
      out.forEach((r, i) => {
        const before = records[i] as (typeof records)[number];
        assert.equal(r.seq, before.seq);
        assert.deepEqual(Buffer.from(r.body), Buffer.from(before.body));
        assert.deepEqual(
          r.headers.map((h) => [Buffer.from(h.name), Buffer.from(h.value)]),
          before.headers.map((h) => [Buffer.from(h.name), Buffer.from(h.value)]),
        );
      });
      const objects = RECORD_OBJECT_BYTES * records.length;
      assert.equal(held, heldBytes(out.flatMap((r) => [...recordViews(r)])) + objects);
      assert.ok(held - objects <= 2 * total, `${held - objects} vs ${total}`);
    }),
  );
});

test("a kilobyte body in a 64 KiB read buffer is copied out; one that owns its memory is not", () => {
  const read = Buffer.alloc(64 * 1024, 1);
  const small = compactRecords([{ body: read.subarray(0, 1024), headers: [] }]);
  assert.equal(small.held, 1024 + RECORD_OBJECT_BYTES);
  assert.equal(small.records[0]?.body.buffer.byteLength, 1024);
  const own = Buffer.alloc(1024, 2);
  const kept = compactRecords([{ body: own, headers: [] }]);
  assert.equal(kept.records[0]?.body, own);
  assert.equal(kept.held, 1024 + RECORD_OBJECT_BYTES);
});

test("heldBytes counts each backing buffer once", () => {
  const a = Buffer.alloc(100);
  const b = Buffer.alloc(30);
  assert.equal(heldBytes([a.subarray(0, 1), a.subarray(5, 9), b]), 130);
  assert.equal(heldBytes([]), 0);
});
