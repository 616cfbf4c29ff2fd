import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { assertHttpError } from "../errors/assert-http-error.test-helper.ts";
import { invalidArgument, seqNumMismatch } from "../errors/index.ts";
import { ackLine, appendLineFromJson, endLine, errorLine } from "./ndjson-append.ts";
import { DEFAULT_APPEND_LIMITS } from "./record-json.ts";

const pos = (seq: string) => ({ seq_num: seq, timestamp_ms: "7" });

test("every output line is one line of JSON ending in LF", () => {
  fc.assert(
    fc.property(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), fc.nat(), (seq, line) => {
      const s = seq.toString();
      const out = [
        ackLine({ start: pos(s), end: pos(s), tail: pos(s) }, "number"),
        errorLine(seqNumMismatch(seq), line, "number"),
        endLine("done", line),
      ];
      for (const l of out) {
        assert.ok(l.endsWith("\n"));
        assert.equal(l.indexOf("\n"), l.length - 1);
      }
      assert.match(out[0] ?? "", new RegExp(`"seq_num":${s},`));
      assert.match(out[1] ?? "", new RegExp(`"expected_seq_num":${s},"line":${line}}`));
    }),
  );
});

test("an error line is the error body plus the line it answers; int64=string applies", () => {
  const line = JSON.parse(errorLine(seqNumMismatch(42n), 3, "string"));
  assert.deepEqual(line, {
    code: "seq_num_mismatch",
    message: "match_seq_num does not match the tail: the next seq_num is 42",
    retryable: false,
    expected_seq_num: "42",
    line: 3,
  });
  assert.deepEqual(JSON.parse(endLine("draining", 2)), { end: { reason: "draining", batches: 2 } });
});

const noCheck = () => {};

test("a line is an AppendInput with a JSON body's errors", () => {
  const batch = appendLineFromJson(
    Buffer.from('{"records":[{"body":"aGk="}],"match_seq_num":5}'),
    "base64",
    DEFAULT_APPEND_LIMITS,
    noCheck,
  );
  assert.equal(batch.records[0]?.body.toString(), "hi");
  assert.equal(batch.match_seq_num, "5");
  assertHttpError(
    () => appendLineFromJson(Buffer.from("{nope"), "raw", DEFAULT_APPEND_LIMITS, noCheck),
    {
      status: 400,
      code: "bad_json",
    },
  );
  assertHttpError(
    () =>
      appendLineFromJson(
        Buffer.from('{"records":[{}],"match_seq_num":"18446744073709551616"}'),
        "raw",
        DEFAULT_APPEND_LIMITS,
        noCheck,
      ),
    {
      status: 400,
      code: "invalid_argument",
      field: "match_seq_num",
    },
  );
  assertHttpError(
    () =>
      appendLineFromJson(
        Buffer.from('{"records":[{"body":"12345"}]}'),
        "raw",
        {
          maxRecordBytes: 10,
          maxBatchBytes: 4,
        },
        noCheck,
      ),
    { status: 413, code: "payload_too_large", field: "records[0]" },
  );
});

test("a line is checked for its shape before it is translated, and the check's error is the line's", () => {
  const seen: unknown[] = [];
  const refuse = (value: unknown) => {
    seen.push(value);
    throw invalidArgument("records", "is refused by the schema");
  };
  assertHttpError(
    () =>
      appendLineFromJson(
        Buffer.from('{"records":[{"body":"x"}]}'),
        "raw",
        DEFAULT_APPEND_LIMITS,
        refuse,
      ),
    { status: 400, code: "invalid_argument", field: "records" },
  );
  assert.deepEqual(seen, [{ records: [{ body: "x" }] }]);
});
