import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import fc from "fast-check";
import {
  CHUNK_FORMAT_VERSION,
  CHUNK_MAGIC,
  CHUNK_TRAILER_LENGTH,
  type ChunkRecord,
  type DecodedChunkRecord,
  decodeChunk,
  decodeChunkSlice,
  decodeFooter,
  encodeChunk,
  footerLengthFromTrailer,
  payloadRange,
  verifyPayload,
} from "./chunk.ts";
import { crc32c } from "./crc32c.ts";
import { CorruptionError } from "./errors.ts";
import { encodedLength } from "./stored-record.ts";

const utf8 = (s: string) => new Uint8Array(Buffer.from(s));
const MAX_U64 = 2n ** 64n - 1n;
const MIN_I64 = -(2n ** 63n);
const MAX_I64 = 2n ** 63n - 1n;

/** Buffers throughout, so records compare by content whatever views decode returned. */
function plain(records: DecodedChunkRecord[]) {
  return records.map((r) => ({
    seqNum: r.seqNum,
    timestampMs: r.timestampMs,
    headers: r.headers.map((h) => ({ name: Buffer.from(h.name), value: Buffer.from(h.value) })),
    body: Buffer.from(r.body),
  }));
}

function expected(firstSeqNum: bigint, records: ChunkRecord[]) {
  return plain(
    records.map((r, i) => ({
      seqNum: firstSeqNum + BigInt(i),
      timestampMs: r.timestampMs,
      headers: r.headers,
      body: r.body,
    })),
  );
}

function corruption(message: RegExp) {
  return (e: unknown) =>
    e instanceof CorruptionError && e.code === "corruption" && message.test(e.message);
}

/** Recomputes data_crc and footer_crc after a test edits a chunk, so only the edit is wrong. */
function reseal(bytes: Buffer, footerOffset: number): Buffer {
  const footer = bytes.subarray(footerOffset);
  footer.writeUInt32LE(crc32c(bytes.subarray(0, footerOffset)), footer.length - 16);
  footer.writeUInt32LE(crc32c(footer.subarray(0, footer.length - 8)), footer.length - 8);
  return bytes;
}

const T = 1700000000000n;
const example = (): ChunkRecord[] => [
  { headers: [], body: utf8("hi"), timestampMs: T },
  { headers: [{ name: utf8("k"), value: utf8("v") }], body: utf8("hi"), timestampMs: T },
];
const EXAMPLE_HEX = [
  "00 68 69",
  "01 01 01 01 6b 76 68 69",
  "4e 56 43 4b",
  "01",
  "07 00 00 00 00 00 00 00",
  "02 00 00 00",
  "0b 00 00 00 00 00 00 00",
  "03 00 00 00",
  "08 00 00 00",
  "00 68 e5 cf 8b 01 00 00",
  "00 68 e5 cf 8b 01 00 00",
  "e8 a2 2e 25",
  "41 00 00 00",
  "56 cd d0 e7",
  "4e 56 43 4b",
].join(" ");

test("worked example: the chunk's bytes exactly", () => {
  const c = encodeChunk(7n, example());
  assert.equal(c.bytes.toString("hex").match(/../g)?.join(" "), EXAMPLE_HEX);
  assert.equal(c.footerOffset, 11);
  assert.equal(c.footerLength, 65);
  assert.equal(c.payloadBytes, 11);
  assert.equal(c.count, 2);
  assert.equal(c.firstSeqNum, 7n);
  assert.equal(c.minTimestampMs, T);
  assert.equal(c.maxTimestampMs, T);
  assert.equal(crc32c(c.bytes.subarray(0, 11)), 0x252ea2e8);
  assert.equal(crc32c(c.bytes.subarray(11, 68)), 0xe7d0cd56);
  assert.deepEqual(plain(decodeChunk(c.bytes).records), expected(7n, example()));
});

test("worked example: docs/storage-layout.md shows the same bytes at the offsets it names", () => {
  const doc = readFileSync(new URL("../../../docs/storage-layout.md", import.meta.url), "utf8");
  const block = doc
    .split("<!-- worked-example:start -->")[1]
    ?.split("<!-- worked-example:end -->")[0];
  assert.ok(block, "worked-example markers");
  const bytes: string[] = [];
  for (const line of block.split("\n")) {
    const m = /^\s*(\d+) {2}((?:[0-9a-f]{2} )*[0-9a-f]{2})(?: {2,}.*)?$/.exec(line);
    if (!m) continue;
    assert.equal(Number(m[1]), bytes.length, `offset column of: ${line}`);
    bytes.push(...(m[2] ?? "").split(" "));
  }
  assert.equal(bytes.join(" "), EXAMPLE_HEX);
});

test("format constants", () => {
  assert.equal(CHUNK_FORMAT_VERSION, 1);
  assert.equal(CHUNK_TRAILER_LENGTH, 12);
  assert.equal(Buffer.from("NVCK").readUInt32LE(0), CHUNK_MAGIC);
});

const bytesArb = (maxLength: number) => fc.uint8Array({ maxLength });
const timestampArb = fc.oneof(
  fc.bigInt({ min: MIN_I64, max: MAX_I64 }),
  fc.bigInt({ min: 2n ** 53n - 3n, max: 2n ** 53n + 3n }),
  fc.bigInt({ min: -1000n, max: 1000n }),
);
const chunkRecordArb: fc.Arbitrary<ChunkRecord> = fc.record({
  headers: fc.array(fc.record({ name: bytesArb(6), value: bytesArb(6) }), { maxLength: 4 }),
  body: bytesArb(48),
  timestampMs: timestampArb,
});
const chunkArb = (maxRecords: number) =>
  fc
    .array(chunkRecordArb, { minLength: 1, maxLength: maxRecords })
    .chain((records) =>
      fc.tuple(
        fc.bigInt({ min: 0n, max: MAX_U64 - BigInt(records.length - 1) }),
        fc.constant(records),
      ),
    );

test("property: decodeChunk(encodeChunk(first, records)) gives the records back", () => {
  fc.assert(
    fc.property(chunkArb(50), ([first, records]) => {
      const c = encodeChunk(first, records);
      const n = records.length;
      const { footer, records: decoded } = decodeChunk(c.bytes);
      assert.deepEqual(plain(decoded), expected(first, records));
      assert.equal(c.bytes.length, c.payloadBytes + c.footerLength);
      assert.equal(c.footerOffset, c.payloadBytes);
      assert.equal(c.footerLength, 41 + 12 * n);
      assert.equal(c.count, n);
      assert.equal(c.firstSeqNum, first);
      const stamps = records.map((r) => r.timestampMs);
      const sorted = [...stamps].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      assert.equal(c.minTimestampMs, sorted[0]);
      assert.equal(c.maxTimestampMs, sorted.at(-1));
      const recordOffsets = [0];
      for (const r of records) recordOffsets.push((recordOffsets.at(-1) ?? 0) + encodedLength(r));
      assert.deepEqual(footer, {
        formatVersion: 1,
        firstSeqNum: first,
        count: n,
        recordOffsets,
        timestamps: stamps,
        dataCrc: crc32c(c.bytes.subarray(0, c.payloadBytes)),
        payloadBytes: c.payloadBytes,
      });
    }),
    { numRuns: 200 },
  );
});

test("property: the footer alone, then any slice [from, to), decodes just those records", () => {
  fc.assert(
    fc.property(
      chunkArb(50).chain(([first, records]) =>
        fc.tuple(
          fc.constant(first),
          fc.constant(records),
          fc.nat(records.length),
          fc.nat(records.length),
        ),
      ),
      ([first, records, a, b]) => {
        const [from, to] = a <= b ? [a, b] : [b, a];
        const c = encodeChunk(first, records);
        const tail = c.bytes.subarray(c.bytes.length - CHUNK_TRAILER_LENGTH);
        assert.equal(footerLengthFromTrailer(tail), c.footerLength);
        // Copies: the reader holds only what its two ranged GETs returned.
        const footer = decodeFooter(
          Buffer.from(c.bytes.subarray(c.footerOffset, c.footerOffset + c.footerLength)),
        );
        const { start, end } = payloadRange(footer, from, to);
        const slice = Buffer.from(c.bytes.subarray(start, end));
        const got = decodeChunkSlice(footer, slice, from, to);
        assert.deepEqual(plain(got), expected(first, records).slice(from, to));
      },
    ),
    { numRuns: 300 },
  );
});

test("every truncation of the worked example is refused", () => {
  const { bytes } = encodeChunk(7n, example());
  for (let cut = 0; cut < bytes.length; cut++) {
    assert.throws(() => decodeChunk(bytes.subarray(0, cut)), CorruptionError, `first ${cut}`);
    assert.throws(() => decodeChunk(bytes.subarray(bytes.length - cut)), CorruptionError);
  }
});

test("property: any truncation of any chunk is refused, from either end", () => {
  fc.assert(
    fc.property(
      chunkArb(20).chain(([first, records]) => {
        const bytes = encodeChunk(first, records).bytes;
        return fc.tuple(fc.constant(bytes), fc.nat(bytes.length - 1));
      }),
      ([bytes, cut]) => {
        assert.throws(() => decodeChunk(bytes.subarray(0, cut)), CorruptionError);
        assert.throws(() => decodeChunk(bytes.subarray(bytes.length - cut)), CorruptionError);
      },
    ),
    { numRuns: 500 },
  );
});

test("every single flipped bit of the worked example is refused", () => {
  const c = encodeChunk(7n, example());
  for (let bit = 0; bit < c.bytes.length * 8; bit++) {
    const bytes = Buffer.from(c.bytes);
    bytes[bit >> 3] = (bytes[bit >> 3] as number) ^ (1 << (bit & 7));
    assert.throws(() => decodeChunk(bytes), CorruptionError, `bit ${bit}`);
    if (bit >= c.footerOffset * 8) {
      assert.throws(() => decodeFooter(bytes.subarray(c.footerOffset)), CorruptionError);
    }
  }
});

test("property: a flipped bit anywhere in payload or footer is refused", () => {
  fc.assert(
    fc.property(
      chunkArb(30).chain(([first, records]) => {
        const bytes = encodeChunk(first, records).bytes;
        return fc.tuple(fc.constant(bytes), fc.nat(bytes.length * 8 - 1));
      }),
      ([encoded, bit]) => {
        const bytes = Buffer.from(encoded);
        bytes[bit >> 3] = (bytes[bit >> 3] as number) ^ (1 << (bit & 7));
        assert.throws(() => decodeChunk(bytes), CorruptionError);
      },
    ),
    { numRuns: 1000 },
  );
});

test("property: random bytes are refused as corruption, never another error", () => {
  const trailer = encodeChunk(7n, example()).bytes.subarray(-CHUNK_TRAILER_LENGTH);
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 120 }), fc.boolean(), (bytes, withTrailer) => {
      const input = withTrailer ? Buffer.concat([bytes, trailer]) : bytes;
      assert.throws(() => decodeChunk(input), CorruptionError);
    }),
    { numRuns: 1000 },
  );
});

test("footerLengthFromTrailer reads footer_len and checks the magic and shape", () => {
  const c = encodeChunk(7n, example());
  const trailer = () => Buffer.from(c.bytes.subarray(-CHUNK_TRAILER_LENGTH));
  assert.equal(footerLengthFromTrailer(trailer()), 65);
  assert.throws(
    () => footerLengthFromTrailer(c.bytes.subarray(-11)),
    corruption(/^chunk footer: trailer is 11 bytes, not 12$/),
  );
  assert.throws(
    () => footerLengthFromTrailer(c.bytes.subarray(-13)),
    corruption(/trailer is 13 bytes/),
  );
  const badMagic = trailer();
  badMagic[11] = 0x4c;
  assert.throws(
    () => footerLengthFromTrailer(badMagic),
    corruption(/^chunk footer: trailer does not end with the magic$/),
  );
  for (const [len, ok] of [
    [53, true],
    [41 + 12 * 357913937, true],
    [0, false],
    [41, false],
    [52, false],
    [54, false],
    [64, false],
    [0xffffffff, false],
  ] as const) {
    const t = trailer();
    t.writeUInt32LE(len, 0);
    if (ok) assert.equal(footerLengthFromTrailer(t), len);
    else {
      assert.throws(
        () => footerLengthFromTrailer(t),
        corruption(new RegExp(`trailer footer_len ${len} is not 41 \\+ 12 × count`)),
      );
    }
  }
});

test("decodeFooter refuses each broken rule with its own message", () => {
  const c = encodeChunk(7n, example());
  const fresh = () => Buffer.from(c.bytes.subarray(c.footerOffset));
  const resealed = (edit: (f: Buffer) => void) => {
    const f = fresh();
    edit(f);
    f.writeUInt32LE(crc32c(f.subarray(0, f.length - 8)), f.length - 8);
    return f;
  };
  const cases: [Buffer, RegExp][] = [
    [fresh().subarray(60), /^chunk footer: 5 bytes, shorter than the trailer$/],
    [fresh().subarray(1), /^chunk footer: 64 bytes, but its trailer says 65$/],
    [resealed((f) => f.writeUInt8(0x4f, 0)), /^chunk footer: does not start with the magic$/],
    [
      (() => {
        const f = fresh();
        f[20] = (f[20] as number) ^ 1;
        return f;
      })(),
      /^chunk footer: footer_crc 0xe7d0cd56, bytes give 0x[0-9a-f]{8}$/,
    ],
    [resealed((f) => f.writeUInt8(2, 4)), /^chunk footer: format version 2, this reader knows 1$/],
    [
      resealed((f) => f.writeUInt32LE(3, 13)),
      /^chunk footer: count 3 needs a 77-byte footer, it is 65$/,
    ],
    [
      resealed((f) => f.writeBigUInt64LE(MAX_U64, 5)),
      /^chunk footer: first_seq_num 18446744073709551615 \+ 2 records passes 2\^64 - 1$/,
    ],
    [
      resealed((f) => {
        f.writeUInt32LE(0, 25);
        f.writeUInt32LE(11, 29);
      }),
      /^chunk footer: record 0 has length 0$/,
    ],
    [
      resealed((f) => f.writeBigUInt64LE(12n, 17)),
      /^chunk footer: payload_bytes 12, record lengths sum to 11$/,
    ],
  ];
  for (const [footer, message] of cases)
    assert.throws(() => decodeFooter(footer), corruption(message));
  // The last seq_num may be exactly 2^64 - 1.
  assert.equal(decodeFooter(resealed((f) => f.writeBigUInt64LE(MAX_U64 - 1n, 5))).count, 2);
});

test("decodeChunk refuses objects too short for a trailer or for their footer", () => {
  const { bytes } = encodeChunk(7n, example());
  assert.throws(
    () => decodeChunk(bytes.subarray(0, 11)),
    corruption(/^chunk: 11 bytes, shorter than the trailer$/),
  );
  assert.throws(
    () => decodeChunk(bytes.subarray(20)),
    corruption(/^chunk: footer_len 65 exceeds the 56-byte object$/),
  );
  assert.throws(
    () => decodeChunk(bytes.subarray(1)),
    corruption(/^chunk: payload is 10 bytes, footer says 11$/),
  );
});

test("decodeChunk names a record that fails strict decode even when the CRCs agree", () => {
  const c = encodeChunk(7n, example());
  const bytes = Buffer.from(c.bytes);
  bytes[3] = 0x41;
  reseal(bytes, c.footerOffset);
  assert.throws(
    () => decodeChunk(bytes),
    corruption(/^chunk record 1 \(seq_num 8\): stored record: reserved flag bit 6 set$/),
  );
});

test("verifyPayload checks the payload's length and DataCRC", () => {
  const c = encodeChunk(7n, example());
  const footer = decodeFooter(c.bytes.subarray(c.footerOffset));
  verifyPayload(footer, c.bytes.subarray(0, 11));
  assert.throws(
    () => verifyPayload(footer, c.bytes.subarray(0, 10)),
    corruption(/^chunk: payload is 10 bytes, footer says 11$/),
  );
  const damaged = Buffer.from(c.bytes.subarray(0, 11));
  damaged[1] = 0x78;
  assert.throws(
    () => verifyPayload(footer, damaged),
    corruption(/^chunk: DataCRC 0x252ea2e8, payload gives 0x[0-9a-f]{8}$/),
  );
});

test("decodeChunkSlice refuses a slice of the wrong size; payloadRange refuses bad indexes", () => {
  const c = encodeChunk(7n, example());
  const footer = decodeFooter(c.bytes.subarray(c.footerOffset));
  assert.deepEqual(payloadRange(footer, 0, 2), { start: 0, end: 11 });
  assert.deepEqual(payloadRange(footer, 1, 2), { start: 3, end: 11 });
  assert.deepEqual(payloadRange(footer, 1, 1), { start: 3, end: 3 });
  assert.deepEqual(decodeChunkSlice(footer, new Uint8Array(0), 2, 2), []);
  assert.throws(
    () => decodeChunkSlice(footer, c.bytes.subarray(3, 10), 1, 2),
    corruption(/^chunk: slice for records \[1, 2\) is 7 bytes, not 8$/),
  );
  for (const [from, to] of [
    [-1, 1],
    [1, 0],
    [0, 3],
    [0.5, 1],
    [0, Number.NaN],
  ]) {
    assert.throws(() => payloadRange(footer, from as number, to as number), RangeError);
    assert.throws(
      () => decodeChunkSlice(footer, c.bytes, from as number, to as number),
      RangeError,
    );
  }
});

test("encodeChunk refuses what the format cannot hold", () => {
  const one = example().slice(0, 1);
  assert.throws(() => encodeChunk(7n, []), RangeError);
  assert.throws(() => encodeChunk(-1n, one), RangeError);
  assert.throws(() => encodeChunk(MAX_U64, example()), RangeError);
  assert.equal(encodeChunk(MAX_U64, one).firstSeqNum, MAX_U64);
  assert.equal(encodeChunk(MAX_U64 - 1n, example()).count, 2);
  const at = (timestampMs: bigint) => [{ ...one[0], headers: [], body: utf8(""), timestampMs }];
  assert.throws(() => encodeChunk(0n, at(MAX_I64 + 1n)), RangeError);
  assert.throws(() => encodeChunk(0n, at(MIN_I64 - 1n)), RangeError);
  const extremes = [...at(MAX_I64), ...at(MIN_I64)];
  const c = encodeChunk(0n, extremes);
  assert.equal(c.minTimestampMs, MIN_I64);
  assert.equal(c.maxTimestampMs, MAX_I64);
  assert.deepEqual(decodeChunk(c.bytes).footer.timestamps, [MAX_I64, MIN_I64]);
});
