import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import type { ChunkRecord, DecodedChunkRecord } from "./chunk.ts";
import { CorruptionError } from "./errors.ts";
import { decodeLogObject, encodeLogObject, type LogEntry } from "./log-object.ts";

const bytesArb = (maxLength: number) => fc.uint8Array({ maxLength });
const recordArb: fc.Arbitrary<ChunkRecord> = fc.record({
  headers: fc.array(fc.record({ name: bytesArb(6), value: bytesArb(6) }), { maxLength: 3 }),
  body: bytesArb(40),
  timestampMs: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
});
const entryArb: fc.Arbitrary<LogEntry> = fc.record({
  streamId: fc.string({ maxLength: 40 }),
  bucket: fc.string({ maxLength: 20 }),
  key: fc.string({ unit: "binary", maxLength: 60 }),
  firstSeqNum: fc.bigInt({ min: 0n, max: 2n ** 63n }),
  records: fc.array(recordArb, { minLength: 1, maxLength: 8 }),
});
const objectArb = fc.array(entryArb, { minLength: 1, maxLength: 6 });

const plain = (records: DecodedChunkRecord[]) =>
  records.map((r) => ({
    seqNum: r.seqNum,
    timestampMs: r.timestampMs,
    headers: r.headers.map((h) => [Buffer.from(h.name), Buffer.from(h.value)]),
    body: Buffer.from(r.body),
  }));

test("property: decodeLogObject(encodeLogObject(entries)) gives every entry back, in order", () => {
  fc.assert(
    fc.property(objectArb, (entries) => {
      const decoded = decodeLogObject(encodeLogObject(entries));
      assert.equal(decoded.length, entries.length);
      decoded.forEach((d, i) => {
        const e = entries[i] as LogEntry;
        assert.equal(d.streamId, e.streamId);
        assert.equal(d.bucket, e.bucket);
        assert.equal(d.key, e.key);
        assert.equal(d.firstSeqNum, e.firstSeqNum);
        assert.deepEqual(
          plain(d.records),
          e.records.map((r, j) => ({
            seqNum: e.firstSeqNum + BigInt(j),
            timestampMs: r.timestampMs,
            headers: r.headers.map((h) => [Buffer.from(h.name), Buffer.from(h.value)]),
            body: Buffer.from(r.body),
          })),
        );
      });
    }),
    { numRuns: 200 },
  );
});

test("property: any single flipped bit, or any truncation, is refused as corruption", () => {
  fc.assert(
    fc.property(
      objectArb.chain((entries) => {
        const bytes = encodeLogObject(entries);
        return fc.tuple(fc.constant(bytes), fc.nat(bytes.length * 8 - 1), fc.nat(bytes.length - 1));
      }),
      ([bytes, bit, cut]) => {
        const flipped = Buffer.from(bytes);
        flipped[bit >> 3] = (flipped[bit >> 3] as number) ^ (1 << (bit & 7));
        assert.throws(() => decodeLogObject(flipped), CorruptionError);
        assert.throws(() => decodeLogObject(bytes.subarray(0, cut)), CorruptionError);
      },
    ),
    { numRuns: 200 },
  );
});

test("an object with no entries cannot be written", () => {
  assert.throws(() => encodeLogObject([]), RangeError);
});
