import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { contentBytes } from "../../contract/codec/index.ts";
import type { Record__Output } from "../../gen/nova/v1/Record.ts";
import { BufferPool } from "../../platform/memory/index.ts";
import { assertHttpError } from "../errors/assert-http-error.test-helper.ts";
import { parseJsonExact, stringifyJsonExact } from "./json-exact.ts";
import { ScratchWriter } from "./json-scratch.ts";
import {
  appendAckToJson,
  appendInputFromJson,
  framedJson,
  positionText,
  readBatchJsonBytes,
  readBatchToJson,
  recordsJsonBytes,
  recordToJson,
} from "./record-json.ts";

const bytes = fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b));
const header = fc.record(
  { name: fc.uint8Array({ minLength: 1, maxLength: 16 }).map((b) => Buffer.from(b)), value: bytes },
  { noNullPrototype: true },
);
const uint64 = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });
const timestamp = fc.bigInt({ min: 0n, max: 2n ** 63n - 1n });

/** A record as a star serves it (proto-loader output: decimal strings, Buffers). */
const servedRecord: fc.Arbitrary<Record__Output> = fc.record(
  {
    seq_num: uint64.map(String),
    timestamp_ms: timestamp.map(String),
    body: bytes,
    headers: fc.array(header, { maxLength: 5 }),
  },
  { noNullPrototype: true },
);

test("base64: JSON in -> proto -> served -> JSON out keeps every byte and integer", () => {
  fc.assert(
    fc.property(
      fc.array(servedRecord, { minLength: 1, maxLength: 5 }),
      uint64,
      fc.boolean(),
      (served, match, asPairs) => {
        // What a client writes: the JSON of a read, minus seq_num, headers maybe as pairs.
        const out = served.map((r) => recordToJson(r, "base64", "number"));
        const input = {
          records: out.map((r) => ({
            body: r.body,
            headers: r.headers.map((h) => (asPairs ? [h.name, h.value] : h)),
            timestamp_ms: r.timestamp_ms,
          })),
          match_seq_num: match,
        };
        // Through the wire text, so big integers arrive as parseJsonExact gives them.
        const batch = appendInputFromJson(parseJsonExact(stringifyJsonExact(input)), "base64");
        assert.equal(batch.match_seq_num, match.toString());
        assert.deepEqual(
          batch.records,
          served.map((r) => ({ body: r.body, headers: r.headers, timestamp_ms: r.timestamp_ms })),
        );
      },
    ),
  );
});

test("raw: text in -> bytes -> text out", () => {
  const text = fc.string({ unit: "binary", maxLength: 20 });
  fc.assert(
    fc.property(
      text,
      fc.array(
        fc.tuple(
          text.filter((s) => s !== ""),
          text,
        ),
        { maxLength: 4 },
      ),
      (body, headers) => {
        const batch = appendInputFromJson({ records: [{ body, headers }] }, "raw");
        const [record] = batch.records;
        assert.ok(record);
        const served = { seq_num: "1", timestamp_ms: "2", ...record };
        assert.deepEqual(recordToJson(served, "raw", "number"), {
          seq_num: 1n,
          timestamp_ms: 2n,
          headers: headers.map(([name, value]) => ({ name, value })),
          body,
        });
      },
    ),
  );
});

test("the smallest input: one empty record; body and headers default to empty", () => {
  assert.deepEqual(appendInputFromJson({ records: [{}] }, "raw"), {
    records: [{ body: Buffer.alloc(0), headers: [] }],
  });
});

test("duplicate header names keep their order", () => {
  const batch = appendInputFromJson(
    { records: [{ headers: [{ name: "k", value: "1" }, ["k", "2"], { name: "k", value: "" }] }] },
    "raw",
  );
  assert.deepEqual(
    batch.records[0]?.headers.map((h) => [h.name.toString(), h.value.toString()]),
    [
      ["k", "1"],
      ["k", "2"],
      ["k", ""],
    ],
  );
});

test("fencing_token and match_seq_num pass through exactly", () => {
  const batch = appendInputFromJson(
    { records: [{}], match_seq_num: "18446744073709551615", fencing_token: "é".repeat(24) },
    "base64",
  );
  assert.deepEqual(
    [batch.match_seq_num, batch.fencing_token],
    ["18446744073709551615", "é".repeat(24)],
  );
});

const bad = (
  input: unknown,
  field: string,
  code = "invalid_argument",
  status = 400,
  format: "raw" | "base64" = "raw",
) =>
  assertHttpError(
    () => appendInputFromJson(input, format, { maxRecordBytes: 10, maxBatchBytes: 25 }),
    {
      status,
      code,
      field,
    },
  );

test("what the AppendInput schema cannot say is refused with its code, status and field", () => {
  // No body at all: a POST without a content type is not validated by media type.
  bad(undefined, "body");
  // Exact integers out of range (the schema sees digits), the token's UTF-8 bytes.
  bad({ records: [{ timestamp_ms: "-9223372036854775809" }] }, "records[0].timestamp_ms");
  bad({ records: [{ timestamp_ms: "9223372036854775808" }] }, "records[0].timestamp_ms");
  bad({ records: [{}], match_seq_num: "18446744073709551616" }, "match_seq_num");
  bad({ records: [{}], fencing_token: "é".repeat(25) }, "fencing_token");
  // The schema's [name, value] pair allows an empty name.
  bad({ records: [{ headers: [["", "v"]] }] }, "records[0].headers[0][0]");
  // Base64: the record index and the field.
  const pair = { name: "aGk=", value: "aGk=" };
  const badValue = { records: [{}, {}, {}, { headers: [pair, { name: "aGk=", value: "a b" }] }] };
  bad(badValue, "records[3].headers[1].value", "bad_base64", 400, "base64");
  bad({ records: [{ body: "!" }] }, "records[0].body", "bad_base64", 400, "base64");
  bad(
    { records: [{ headers: [["a", "aGk="]] }] },
    "records[0].headers[0][0]",
    "bad_base64",
    400,
    "base64",
  );
});

test("size caps count content bytes: 400 for a record, 413 for the batch, naming the record", () => {
  const limits = { maxRecordBytes: 10, maxBatchBytes: 25 };
  // 4 + 3 + 3 = 10 content bytes: at the cap is fine.
  const ten = { body: "body", headers: [["abc", "def"]] };
  assert.equal(appendInputFromJson({ records: [ten, ten] }, "raw", limits).records.length, 2);
  bad({ records: [ten, { body: "x".repeat(11) }] }, "records[1]");
  bad({ records: [{ body: "é".repeat(6) }] }, "records[0]"); // 12 UTF-8 bytes, 6 characters
  bad({ records: [ten, ten, ten] }, "records[2]", "payload_too_large", 413);
});

test("contentBytes is body plus every name and value", () => {
  fc.assert(
    fc.property(bytes, fc.array(header), (body, headers) => {
      const expected =
        body.length + headers.reduce((n, h) => n + h.name.length + h.value.length, 0);
      assert.equal(contentBytes({ body, headers }), expected);
    }),
  );
});

test("a served record that is not UTF-8 fails a raw read with 422, naming seq_num and field", () => {
  const record = (body: number[], headers: [number[], number[]][] = []): Record__Output => ({
    seq_num: "12345678901234567890",
    timestamp_ms: "1",
    body: Buffer.from(body),
    headers: headers.map(([n, v]) => ({ name: Buffer.from(n), value: Buffer.from(v) })),
  });
  for (const [r, field] of [
    [record([0xff]), "body"],
    [
      record(
        [],
        [
          [[0x61], [0x61]],
          [[0xfe], [0x61]],
        ],
      ),
      "headers[1].name",
    ],
    [record([], [[[0x61], [0xc3, 0x28]]]), "headers[0].value"],
  ] as const) {
    const e = assertHttpError(
      () => readBatchToJson({ records: [r], tail: null }, "raw", "number"),
      {
        status: 422,
        code: "not_utf8",
        field,
      },
    );
    assert.equal(e.fields.seq_num, 12345678901234567890n);
    // The same record reads fine as base64.
    readBatchToJson({ records: [r], tail: null }, "base64", "number");
  }
});

test("ReadBatch: records in order, the tail, integers per int64 mode", () => {
  const response = {
    records: [
      {
        seq_num: "9007199254740993",
        timestamp_ms: "1709481600000",
        body: Buffer.from("hi"),
        headers: [{ name: Buffer.from("k"), value: Buffer.from("v") }],
      },
    ],
    tail: { seq_num: "9007199254740994", timestamp_ms: "1709481600001" },
  };
  assert.equal(
    stringifyJsonExact(readBatchToJson(response, "raw", "number")),
    '{"records":[{"seq_num":9007199254740993,"timestamp_ms":1709481600000,"headers":[{"name":"k","value":"v"}],"body":"hi"}],"tail":{"seq_num":9007199254740994,"timestamp_ms":1709481600001}}',
  );
  assert.equal(
    stringifyJsonExact(readBatchToJson(response, "base64", "string")),
    '{"records":[{"seq_num":"9007199254740993","timestamp_ms":"1709481600000","headers":[{"name":"aw==","value":"dg=="}],"body":"aGk="}],"tail":{"seq_num":"9007199254740994","timestamp_ms":"1709481600001"}}',
  );
  assert.deepEqual(readBatchToJson({ records: [], tail: null }, "raw", "number"), {
    records: [],
    tail: { seq_num: 0n, timestamp_ms: 0n },
  });
});

/** Bytes that are often valid UTF-8 (text of any kind, escapes, a BOM) and sometimes not. */
const mixedBytes = fc.oneof(
  bytes,
  fc
    .string({
      unit: fc.constantFrom(
        "a",
        '"',
        "\\",
        "\n",
        "\u0000",
        "\u001f",
        "\u007f",
        "é",
        "\u2028",
        "😀",
      ),
    })
    .map((t) => Buffer.from(t, "utf8")),
  fc.uint8Array({ maxLength: 8 }).map((b) => Buffer.from([0xef, 0xbb, 0xbf, ...b])),
  // A view at an odd offset into a larger buffer, as record bytes in a chunk are.
  fc
    .tuple(fc.nat(7), fc.string({ maxLength: 40 }))
    .map(([at, t]) => Buffer.concat([Buffer.alloc(at, 0x22), Buffer.from(t)]).subarray(at)),
  fc.string({ unit: "binary", maxLength: 40 }).map((t) => Buffer.from(t, "utf8")),
  fc.string({ unit: "grapheme-ascii", maxLength: 40 }).map((t) => Buffer.from(t, "utf8")),
);
/** Decimal strings as proto-loader gives them, and spellings BigInt reads that it would not. */
const decimal = fc.oneof(
  uint64.map(String),
  fc.tuple(fc.constantFrom("0", "00", " ", "+"), uint64).map(([p, n]) => `${p}${n}`),
);
const anyRecord: fc.Arbitrary<Record__Output> = fc.record(
  {
    seq_num: decimal,
    timestamp_ms: decimal,
    body: mixedBytes,
    headers: fc.array(fc.record({ name: mixedBytes, value: mixedBytes }), { maxLength: 3 }),
  },
  { noNullPrototype: true },
);
const tailArb = fc.option(fc.record({ seq_num: decimal, timestamp_ms: decimal }), {
  nil: null,
});
const formatArb = fc.constantFrom("raw" as const, "base64" as const);
const modeArb = fc.constantFrom("number" as const, "string" as const);

/** The outcome of a throwing function: its value, or the error it threw. */
function outcome<T>(f: () => T): { value: T } | { error: unknown } {
  try {
    return { value: f() };
  } catch (error) {
    return { error };
  }
}

test("readBatchJsonBytes is the UTF-8 of stringifyJsonExact(readBatchToJson), exactly", () => {
  fc.assert(
    fc.property(
      fc.array(anyRecord, { maxLength: 6 }),
      tailArb,
      formatArb,
      modeArb,
      (records, tail, format, mode) => {
        const response = { records, tail };
        const fast = outcome(() => readBatchJsonBytes(response, format, mode));
        const slow = outcome(() =>
          Buffer.from(stringifyJsonExact(readBatchToJson(response, format, mode)), "utf8"),
        );
        // The same bytes, or the same error (status, code, message and fields).
        assert.deepEqual(fast, slow);
      },
    ),
    { numRuns: 1000 },
  );
});

test("recordsJsonBytes stops at the first record that cannot be shown, with its error", () => {
  fc.assert(
    fc.property(fc.array(anyRecord, { maxLength: 6 }), modeArb, (records, mode) => {
      const { json: parts, written, failure } = recordsJsonBytes(records, "raw", mode);
      const json: string[] = [];
      let expected: unknown;
      for (const r of records) {
        const one = outcome(() => stringifyJsonExact(recordToJson(r, "raw", mode)));
        if ("error" in one) {
          expected = one.error;
          break;
        }
        json.push(one.value);
      }
      const expectedBytes = Buffer.from(json.join(","), "utf8");
      assert.deepEqual(framedJson("", parts, ""), expectedBytes);
      assert.equal(parts.byteLength, expectedBytes.length);
      assert.equal(written, json.length);
      assert.deepEqual(failure, expected);
    }),
    { numRuns: 500 },
  );
});

test("positionText: positionToJson's text, an unset position as zeros", () => {
  assert.equal(positionText(null, "number"), '{"seq_num":0,"timestamp_ms":0}');
  assert.equal(
    positionText({ seq_num: "018446744073709551615", timestamp_ms: "7" }, "string"),
    '{"seq_num":"18446744073709551615","timestamp_ms":"7"}',
  );
});

test("AppendAck: start, end and tail, exactly", () => {
  fc.assert(
    fc.property(
      uint64,
      timestamp,
      fc.constantFrom("number" as const, "string" as const),
      (seq, ts, mode) => {
        const p = { seq_num: seq.toString(), timestamp_ms: ts.toString() };
        const ack = appendAckToJson({ start: p, end: p, tail: p }, mode);
        const expected =
          mode === "string"
            ? { seq_num: seq.toString(), timestamp_ms: ts.toString() }
            : { seq_num: seq, timestamp_ms: ts };
        assert.deepEqual(ack, { start: expected, end: expected, tail: expected });
      },
    ),
  );
});

test("framedJson into reused, dirty memory writes every byte of the frame and the JSON", () => {
  const pool = new BufferPool(16 * 1024 * 1024);
  fc.assert(
    fc.property(
      fc.string(),
      fc.array(fc.uint8Array({ minLength: 1, maxLength: 40_000 }), { maxLength: 8 }),
      fc.string(),
      (before, parts, after) => {
        const dirty = pool.take(256 * 1024);
        dirty.fill(0xaa);
        pool.give(dirty);
        const writer = new ScratchWriter();
        for (const part of parts) writer.bytes(part);
        const json = writer.finish();
        const framed = framedJson(before, json, after, (size) => pool.take(size));
        assert.deepEqual(
          framed,
          Buffer.concat([Buffer.from(before), ...parts, Buffer.from(after)]),
        );
        pool.give(framed);
      },
    ),
    { numRuns: 200 },
  );
});
