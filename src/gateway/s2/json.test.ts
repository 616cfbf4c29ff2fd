import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { parseJsonExact, stringifyJsonExact } from "../translate/index.ts";
import { appendRecord, sequencedRecord, uint64 } from "./arbitraries.test-helper.ts";
import {
  appendInputFromS2Json,
  readBatchToS2Json,
  type S2Format,
  s2Format,
  sequencedRecordToS2Json,
} from "./json.ts";

const b64 = (b: Uint8Array) => Buffer.from(b).toString("base64");
const invalid = (says: string) => (err: { status: number; code: string; message: string }) =>
  err.status === 422 && err.code === "invalid" && err.message.includes(says);

test("base64: records written as S2 JSON read back as the same bytes, integers exact", () => {
  fc.assert(
    fc.property(fc.array(sequencedRecord, { maxLength: 4 }), (records) => {
      const json = parseJsonExact(stringifyJsonExact(readBatchToS2Json({ records }, "base64"))) as {
        records: { seq_num: unknown; headers?: string[][]; body?: string }[];
      };
      json.records.forEach((out, i) => {
        const r = records[i] as (typeof records)[number];
        assert.equal(String(out.seq_num), r.seq_num);
        assert.deepEqual(Buffer.from(out.body ?? "", "base64"), r.body);
        assert.deepEqual(
          (out.headers ?? []).map(([n, v]) => [b64(Buffer.from(n as string, "base64")), v]),
          r.headers.map((h) => [b64(h.name), b64(h.value)]),
        );
      });
    }),
  );
});

test("an AppendInput in S2 JSON (base64) decodes to the records it was made from", () => {
  fc.assert(
    fc.property(fc.array(appendRecord, { maxLength: 4 }), uint64, (records, match) => {
      const body = parseJsonExact(
        stringifyJsonExact({
          records: records.map((r) => ({
            ...(r.timestamp === undefined ? {} : { timestamp: BigInt(r.timestamp) }),
            headers: r.headers.map((h) => [b64(h.name), b64(h.value)]),
            body: b64(r.body),
          })),
          match_seq_num: BigInt(match),
        }),
      );
      const input = appendInputFromS2Json(body, "base64");
      assert.equal(input.match_seq_num, match);
      assert.deepEqual(
        input.records.map((r) => ({ ...r })),
        records.map((r) => ({ ...r })),
      );
    }),
  );
});

test("raw text: empty headers and body are left out; null optional fields are absent", () => {
  const out = sequencedRecordToS2Json(
    { seq_num: "1", timestamp: "2", headers: [], body: Buffer.alloc(0) },
    "raw",
  );
  assert.deepEqual(out, { seq_num: 1n, timestamp: 2n });
  const input = appendInputFromS2Json(
    { records: [{ body: "hé", headers: [["k", "v"]], timestamp: null }], fencing_token: null },
    "raw",
  );
  assert.deepEqual(input.records[0]?.body, Buffer.from("hé"));
  assert.equal(input.fencing_token, undefined);
  assert.equal(input.records[0]?.timestamp, undefined);
});

test("bytes that are not UTF-8 read as raw show U+FFFD, as S2 shows them; base64 keeps them", () => {
  const record = {
    seq_num: "9",
    timestamp: "0",
    headers: [{ name: Buffer.from("k"), value: Buffer.from([0x61, 0xc3]) }],
    body: Buffer.from([0x68, 0xff, 0x69, 0xef, 0xbb, 0xbf]),
  };
  assert.deepEqual(sequencedRecordToS2Json(record, "raw"), {
    seq_num: 9n,
    timestamp: 0n,
    headers: [["k", "a\uFFFD"]],
    // One U+FFFD per bad byte; a BOM inside a body is content, kept as it is.
    body: "h\uFFFDi\uFEFF",
  });
  assert.equal(sequencedRecordToS2Json(record, "base64").body, "aP9p77u/");
});

test("bad AppendInput bodies are S2's invalid, naming the field", () => {
  const cases: [unknown, S2Format, string][] = [
    [[], "raw", "body"],
    [{}, "raw", "records"],
    [{ records: [], extra: 1 }, "raw", "extra"],
    [{ records: [{ body: 5 }] }, "raw", "records[0].body"],
    [{ records: [{ headers: [["a"]] }] }, "raw", "records[0].headers[0]"],
    [{ records: [{ headers: [{ name: "a", value: "b" }] }] }, "raw", "records[0].headers[0]"],
    [{ records: [{ body: "!!" }] }, "base64", "records[0].body"],
    [{ records: [{ timestamp: -1 }] }, "raw", "records[0].timestamp"],
    [{ records: [], match_seq_num: "x" }, "raw", "match_seq_num"],
    [{ records: [], fencing_token: 3 }, "raw", "fencing_token"],
  ];
  for (const [body, format, says] of cases) {
    assert.throws(() => appendInputFromS2Json(body, format), invalid(says), says);
  }
});

test("s2-format: raw by default, S2's older names accepted, anything else bad_header", () => {
  assert.equal(s2Format(undefined), "raw");
  assert.equal(s2Format("json"), "raw");
  assert.equal(s2Format("base64"), "base64");
  assert.equal(s2Format("json-binsafe"), "base64");
  assert.throws(
    () => s2Format("hex"),
    (err: { status: number; code: string }) => err.status === 400 && err.code === "bad_header",
  );
});
