import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import type { ChunkRecord, DecodedChunkRecord } from "./chunk.ts";
import { crc32c } from "./crc32c.ts";
import { CorruptionError } from "./errors.ts";
import {
  decodeLogObject,
  type EntryMarks,
  encodeLogObject,
  type LogEntry,
  NO_MARKS,
} from "./log-object.ts";

const bytesArb = (maxLength: number) => fc.uint8Array({ maxLength });
const u64 = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });
function marksArb(): fc.Arbitrary<EntryMarks> {
  return fc.record(
    {
      closed: fc.boolean(),
      producers: fc.array(
        fc.record(
          {
            id: fc.string({ unit: "binary", minLength: 1, maxLength: 30 }),
            epoch: u64,
            seq: u64,
            start: u64,
            end: u64,
            timestampMs: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
          },
          { noNullPrototype: true },
        ),
        { maxLength: 4 },
      ),
      writerSeq: fc.string({ unit: "binary", maxLength: 30 }),
    },
    { noNullPrototype: true, requiredKeys: ["closed", "producers"] },
  );
}
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
  marks: fc.option(marksArb(), { nil: undefined }),
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
        assert.deepEqual(d.marks, e.marks ?? NO_MARKS);
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

/** One entry of one record, without marks. */
const lone: LogEntry = {
  streamId: "s",
  bucket: "b",
  key: "k",
  firstSeqNum: 7n,
  records: [{ headers: [], body: Buffer.from("x"), timestampMs: 5n }],
};

test("a version 1 object (written before producer marks) decodes with no marks", () => {
  const v2 = encodeLogObject([lone]);
  // Version 1 is version 2 without each entry's 3 bytes of empty marks, and its own CRC.
  const body = Buffer.concat([v2.subarray(0, v2.length - 8 - 3)]);
  body.writeUInt8(1, 4);
  const tail = Buffer.alloc(8);
  tail.writeUInt32LE(crc32c(body), 0);
  Buffer.from("NVLG").copy(tail, 4);
  const [decoded] = decodeLogObject(Buffer.concat([body, tail]));
  assert.equal(decoded?.firstSeqNum, 7n);
  assert.equal(decoded?.records.length, 1);
  assert.deepEqual(decoded?.marks, NO_MARKS);
});

test("a version 2 object (written before writer seqs) decodes, and refuses their flag", () => {
  const v3 = Buffer.from(encodeLogObject([lone]));
  v3.writeUInt8(2, 4);
  const recrc = (b: Buffer) => b.writeUInt32LE(crc32c(b.subarray(0, b.length - 8)), b.length - 8);
  recrc(v3);
  assert.deepEqual(decodeLogObject(v3)[0]?.marks, NO_MARKS);
  v3.writeUInt8(2, v3.length - 8 - 3);
  recrc(v3);
  assert.throws(() => decodeLogObject(v3), /unknown flags 2/);
});

test("a writer seq mark, the empty one included, decodes as written", () => {
  for (const writerSeq of ["", "001", "é"]) {
    const [d] = decodeLogObject(encodeLogObject([{ ...lone, marks: { ...NO_MARKS, writerSeq } }]));
    assert.equal(d?.marks.writerSeq, writerSeq);
  }
});

test("names and producer ids that start with U+FEFF decode as written", () => {
  const bom = "\uFEFF";
  const marks: EntryMarks = {
    ...NO_MARKS,
    producers: [
      { id: `${bom}\u0000`, epoch: 0n, seq: 0n, start: 0n, end: 0n, timestampMs: 0n },
      { id: bom, epoch: 1n, seq: 1n, start: 0n, end: 1n, timestampMs: 1n },
    ],
    writerSeq: `${bom}7`,
  };
  const entry = { ...lone, streamId: `${bom}id`, bucket: `${bom}b`, key: `${bom}${bom}k`, marks };
  const [d] = decodeLogObject(encodeLogObject([entry]));
  assert.equal(d?.streamId, entry.streamId);
  assert.equal(d?.bucket, entry.bucket);
  assert.equal(d?.key, entry.key);
  assert.deepEqual(d?.marks, marks);
});

test("unknown entry flags are refused as corruption, naming them", () => {
  const bytes = Buffer.from(encodeLogObject([lone]));
  const flagsAt = bytes.length - 8 - 3;
  bytes.writeUInt8(4, flagsAt);
  bytes.writeUInt32LE(crc32c(bytes.subarray(0, bytes.length - 8)), bytes.length - 8);
  assert.throws(() => decodeLogObject(bytes), /unknown flags 4/);
});
