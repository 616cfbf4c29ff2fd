import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { CorruptionError } from "./errors.ts";
import {
  contentBytes,
  decodeStoredRecord,
  encodedLength,
  encodeStoredRecord,
  encodeStoredRecordInto,
  type RecordHeader,
  type StoredRecord,
} from "./stored-record.ts";

const utf8 = (s: string) => new Uint8Array(Buffer.from(s));
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const fromHex = (s: string) => new Uint8Array(Buffer.from(s.replaceAll(" ", ""), "hex"));

/** Copies into Buffers so records compare by content, whatever kind of views decode returned. */
function plain(r: StoredRecord) {
  return {
    headers: r.headers.map((h) => ({ name: Buffer.from(h.name), value: Buffer.from(h.value) })),
    body: Buffer.from(r.body),
  };
}

/** Width the seed prescribes for a longest length, computed apart from the encoder's own rule. */
const widthOf = (longest: number) => Math.max(1, Math.ceil(Math.log2(longest + 1) / 8));

function tableSize(headers: RecordHeader[]): number {
  if (headers.length === 0) return 0;
  const nameWidth = widthOf(Math.max(...headers.map((h) => h.name.length)));
  const valueWidth = widthOf(Math.max(...headers.map((h) => h.value.length)));
  return 1 + headers.length * (nameWidth + valueWidth);
}

function roundTrip(r: StoredRecord): Buffer {
  const encoded = encodeStoredRecord(r);
  assert.deepEqual(plain(decodeStoredRecord(encoded)), plain(r));
  return encoded;
}

function refuses(bytes: Uint8Array, message: RegExp): void {
  assert.throws(
    () => decodeStoredRecord(bytes),
    (e) => e instanceof CorruptionError && e.code === "corruption" && message.test(e.message),
  );
}

test("docs/storage-layout.md example: body hi, no headers is 00 68 69", () => {
  const r = { headers: [], body: utf8("hi") };
  assert.equal(hex(roundTrip(r)), "006869");
  assert.equal(encodedLength(r), 3);
  assert.equal(contentBytes(r), 2);
  assert.deepEqual(plain(decodeStoredRecord(fromHex("00 68 69"))), plain(r));
});

test("docs/storage-layout.md example: body hi, header k=v is 01 01 01 01 6b 76 68 69", () => {
  const r = { headers: [{ name: utf8("k"), value: utf8("v") }], body: utf8("hi") };
  assert.equal(hex(roundTrip(r)), "010101016b766869");
  assert.equal(encodedLength(r), 8);
  assert.equal(contentBytes(r), 4);
  assert.deepEqual(plain(decodeStoredRecord(fromHex("01 01 01 01 6b 76 68 69"))), plain(r));
});

test("a 300-byte value pays two-byte value lengths", () => {
  const value = new Uint8Array(300).fill(7);
  const r = { headers: [{ name: utf8("k"), value }], body: utf8("x") };
  const encoded = roundTrip(r);
  // flag: count width 01, name width 00 (1 byte), value width 01 (2 bytes).
  assert.equal(encoded[0], 0b0001_0001);
  assert.equal(hex(encoded.subarray(0, 6)), "1101012c016b");
  assert.equal(encoded.length, 1 + 1 + 3 + 1 + 300 + 1);
});

test("the longest name and value pick the widths, not the first", () => {
  const r = {
    headers: [
      { name: utf8("a"), value: utf8("") },
      { name: new Uint8Array(256), value: new Uint8Array(65536) },
      { name: utf8("b"), value: utf8("c") },
    ],
    body: new Uint8Array(0),
  };
  const encoded = roundTrip(r);
  assert.equal(encoded[0], 0b01 | (1 << 2) | (2 << 4));
  assert.equal(encoded.length, 2 + 3 * (2 + 3) + 1 + 256 + 65536 + 2);
});

// One zero-filled buffer (16 MiB + 1) whose views make every boundary length.
const zeros = new Uint8Array(2 ** 24 + 1);
const boundaries: [number, number][] = [
  [0, 1],
  [255, 1],
  [256, 2],
  [65535, 2],
  [65536, 3],
  [2 ** 24 - 1, 3],
  [2 ** 24, 4],
];

test("name widths 1..4 at the boundaries", () => {
  for (const [length, width] of boundaries) {
    const name = zeros.subarray(0, length);
    const r = { headers: [{ name, value: utf8("v") }], body: utf8("b") };
    const encoded = encodeStoredRecord(r);
    assert.equal(encoded[0], 0b01 | ((width - 1) << 2), `flag for name length ${length}`);
    assert.equal(encoded[1], 1);
    assert.equal(encoded.readUIntLE(2, width), length);
    assert.equal(encoded[2 + width], 1, "value length stays one byte");
    assert.equal(encoded.length, 3 + width + length + 2);
    const back = decodeStoredRecord(encoded);
    assert.equal(back.headers[0]?.name.length, length);
    assert.equal(hex(back.headers[0]?.value ?? new Uint8Array()), "76");
    assert.equal(hex(back.body), "62");
  }
});

test("value widths 1..4 at the boundaries", () => {
  for (const [length, width] of boundaries) {
    const value = zeros.subarray(0, length);
    const r = { headers: [{ name: utf8("n"), value }], body: utf8("b") };
    const encoded = encodeStoredRecord(r);
    assert.equal(encoded[0], 0b01 | ((width - 1) << 4), `flag for value length ${length}`);
    assert.equal(encoded[2], 1, "name length stays one byte");
    assert.equal(encoded.readUIntLE(3, width), length);
    assert.equal(encoded.length, 3 + width + 1 + length + 1);
    const back = decodeStoredRecord(encoded);
    assert.equal(back.headers[0]?.value.length, length);
    assert.equal(hex(back.body), "62");
  }
});

test("3- and 4-byte widths round-trip their bytes exactly", () => {
  const name = new Uint8Array(70000);
  name[0] = 1;
  name[69999] = 2;
  const value = new Uint8Array(2 ** 24 + 3);
  value[0] = 3;
  value[2 ** 24 + 2] = 4;
  const r = {
    headers: [
      { name, value },
      { name: utf8(""), value: utf8("") },
    ],
    body: utf8("end"),
  };
  const encoded = roundTrip(r);
  assert.equal(encoded[0], 0b01 | (2 << 2) | (3 << 4));
  assert.equal(encoded.length, 1 + 1 + 2 * 7 + contentBytes(r));
});

test("an empty header name is legal at codec level", () => {
  const encoded = roundTrip({ headers: [{ name: utf8(""), value: utf8("v") }], body: utf8("") });
  assert.equal(hex(encoded), "0101000176");
});

test("encodeStoredRecordInto writes at the offset and returns the bytes written", () => {
  const r = { headers: [{ name: utf8("k"), value: utf8("v") }], body: utf8("hi") };
  const out = new Uint8Array(12).fill(0xee);
  assert.equal(encodeStoredRecordInto(r, out, 3), 8);
  assert.equal(hex(out), "eeeeee010101016b766869ee");
});

test("encodeStoredRecordInto refuses a buffer without room and writes nothing", () => {
  const r = { headers: [], body: utf8("hi") };
  for (const [size, offset] of [
    [2, 0],
    [5, 3],
    [3, -1],
    [4, 0.5],
  ] as const) {
    const out = new Uint8Array(size).fill(0xee);
    assert.throws(() => encodeStoredRecordInto(r, out, offset), RangeError);
    assert.ok(out.every((b) => b === 0xee));
  }
});

test("the encoder refuses more than 255 headers and lengths of 2^32", () => {
  const header = { name: utf8("k"), value: utf8("v") };
  const max = { headers: Array.from({ length: 255 }, () => header), body: utf8("") };
  const decoded = decodeStoredRecord(roundTrip(max));
  assert.equal(decoded.headers.length, 255);
  const over = { headers: Array.from({ length: 256 }, () => header), body: utf8("") };
  assert.throws(() => encodeStoredRecord(over), RangeError);
  assert.throws(() => encodedLength(over), RangeError);
  // Only .length is read to size the table, so a stand-in avoids allocating 4 GiB.
  const huge = { length: 2 ** 32 } as Uint8Array;
  const fits = { length: 2 ** 32 - 1 } as Uint8Array;
  assert.throws(
    () => encodedLength({ headers: [{ name: huge, value: utf8("") }], body: utf8("") }),
    RangeError,
  );
  assert.throws(
    () => encodedLength({ headers: [{ name: utf8(""), value: huge }], body: utf8("") }),
    RangeError,
  );
  assert.equal(
    encodedLength({ headers: [{ name: fits, value: utf8("") }], body: utf8("") }),
    1 + 1 + 5 + 2 ** 32 - 1,
  );
});

test("decoder refuses an empty input", () => {
  refuses(new Uint8Array(0), /^stored record: empty input, no flag byte$/);
});

test("decoder refuses a set reserved bit 6 or 7", () => {
  refuses(fromHex("40 68 69"), /^stored record: reserved flag bit 6 set$/);
  refuses(fromHex("41 01 01 01 6b 76"), /reserved flag bit 6 set/);
  refuses(fromHex("80"), /^stored record: reserved flag bit 7 set$/);
  refuses(fromHex("81 01 01 01 6b 76"), /reserved flag bit 7 set/);
  refuses(fromHex("c0"), /reserved flag bit 6 set/);
});

test("decoder refuses count widths 10 and 11", () => {
  refuses(fromHex("02 01 01 01 6b 76"), /^stored record: reserved count width 10$/);
  refuses(fromHex("03 01 01 01 6b 76"), /^stored record: reserved count width 11$/);
});

test("decoder refuses a zero count under a one-byte count width", () => {
  refuses(fromHex("01 00"), /^stored record: zero header count under a one-byte count width$/);
  refuses(fromHex("01 00 68 69"), /zero header count/);
});

test("decoder refuses a headerless flag with width bits set", () => {
  for (let flag = 0b0100; flag < 0x40; flag += 0b0100) {
    const name = flag.toString(16).padStart(2, "0");
    refuses(
      Uint8Array.of(flag, 0x68, 0x69),
      new RegExp(`^stored record: headerless flag 0x${name} has width bits set$`),
    );
  }
});

test("decoder refuses a table that runs past the framed length", () => {
  refuses(fromHex("01"), /^stored record: header count runs past the framed length/);
  refuses(fromHex("01 01 01"), /^stored record: header table runs past the framed length \(4 > 3/);
  refuses(fromHex("01 02 01 01 01"), /header table runs past the framed length \(6 > 5/);
  // 4-byte name and value widths: one pair is 8 bytes.
  refuses(fromHex("3d 01 00 00 00 00 00 00 00"), /header table runs past the framed length/);
});

test("decoder refuses header bytes that run past the framed length", () => {
  refuses(fromHex("01 01 05 00 61"), /^stored record: header 0 bytes run past the framed length/);
  refuses(fromHex("01 02 01 01 02 02 6b 76 6b 76 76"), /header 1 bytes run past/);
  // Lengths near 2^32 must be refused, not wrapped.
  refuses(fromHex("3d 01 ff ff ff ff ff ff ff ff"), /header 0 bytes run past/);
});

test("every cut inside the table or header bytes is refused; cuts in the body shorten it", () => {
  fc.assert(
    fc.property(headersArb(1, 5), fc.uint8Array({ maxLength: 8 }), (headers, body) => {
      const r = { headers, body };
      const encoded = encodeStoredRecord(r);
      const headerEnd = encoded.length - body.length;
      for (let cut = 0; cut < encoded.length; cut++) {
        const view = encoded.subarray(0, cut);
        if (cut < headerEnd) assert.throws(() => decodeStoredRecord(view), CorruptionError);
        else assert.equal(decodeStoredRecord(view).body.length, cut - headerEnd);
      }
    }),
  );
});

test("decoder returns views into its input, not copies", () => {
  const bytes = fromHex("01 01 01 01 6b 76 68 69");
  const r = decodeStoredRecord(bytes);
  assert.equal(r.body.buffer, bytes.buffer);
  assert.equal(r.headers[0]?.name.buffer, bytes.buffer);
});

test("decoder accepts wider-than-needed lengths (the seed refuses only what it lists)", () => {
  const r = decodeStoredRecord(fromHex("15 01 01 00 01 00 6b 76 68 69"));
  assert.deepEqual(
    plain(r),
    plain({ headers: [{ name: utf8("k"), value: utf8("v") }], body: utf8("hi") }),
  );
});

test("any bytes either decode or are refused as corruption, never another error", () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 40 }), (bytes) => {
      try {
        decodeStoredRecord(bytes);
      } catch (e) {
        assert.ok(e instanceof CorruptionError, String(e));
      }
    }),
    { numRuns: 2000 },
  );
});

function bytesArb(): fc.Arbitrary<Uint8Array> {
  // Mostly short; some straddling 255/256 so two-byte widths show up.
  return fc.oneof(
    { weight: 8, arbitrary: fc.uint8Array({ maxLength: 12 }) },
    { weight: 1, arbitrary: fc.uint8Array({ minLength: 250, maxLength: 262 }) },
  );
}

function headersArb(minLength: number, maxLength: number): fc.Arbitrary<RecordHeader[]> {
  return fc.array(fc.record({ name: bytesArb(), value: bytesArb() }), { minLength, maxLength });
}

const recordArb: fc.Arbitrary<StoredRecord> = fc.record({
  headers: fc.oneof(headersArb(0, 3), headersArb(0, 100)),
  body: fc.oneof(fc.uint8Array({ maxLength: 40 }), fc.uint8Array({ maxLength: 2000 })),
});

test("property: decode(encode(r)) equals r, and sizes add up", () => {
  fc.assert(
    fc.property(recordArb, (r) => {
      const encoded = roundTrip(r);
      const content = r.headers.reduce((n, h) => n + h.name.length + h.value.length, r.body.length);
      assert.equal(contentBytes(r), content);
      assert.equal(encoded.length, 1 + tableSize(r.headers) + content);
      assert.equal(encodedLength(r), encoded.length);
    }),
    { numRuns: 300 },
  );
});
