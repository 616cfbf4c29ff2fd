import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { MAX_BATCH_RECORDS, MAX_HEADERS_PER_RECORD } from "../../contract/wire-limits.ts";
import { assertHttpError } from "../errors/assert-http-error.test-helper.ts";
import { MAX_BODY_JSON_VALUES, parseJsonBody, parseJsonText } from "./json-body.ts";
import { stringifyJsonExact } from "./json-exact.ts";

test("UTF-8 JSON bytes parse with exact integers", () => {
  fc.assert(
    fc.property(
      fc.string({ unit: "binary" }),
      fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
      (s, n) => {
        const bytes = Buffer.from(stringifyJsonExact({ s, n }), "utf8");
        const v = parseJsonBody(bytes) as { s: string; n: number | string };
        assert.equal(v.s, s);
        assert.equal(BigInt(v.n), n);
      },
    ),
  );
});

test("a leading byte-order mark is dropped", () => {
  assert.deepEqual(parseJsonBody(Buffer.from('\ufeff{"a":1}', "utf8")), { a: 1 });
});

test("invalid UTF-8 is 400 bad_json, never replaced", () => {
  const e = assertHttpError(() => parseJsonBody(Buffer.from([0x22, 0xff, 0x22])), {
    status: 400,
    code: "bad_json",
  });
  assert.match(e.message, /not valid UTF-8/);
});

test("a syntax error is 400 bad_json with its position", () => {
  const e = assertHttpError(() => parseJsonText('{"records": [1,]}'), {
    status: 400,
    code: "bad_json",
  });
  assert.equal(e.fields.position, 15);
  assert.match(e.message, /position 15/);
  assertHttpError(() => parseJsonBody(new Uint8Array()), { status: 400, code: "bad_json" });
});

test("a batch at the caps parses; a body of more values is 413", () => {
  const headers = Array.from({ length: MAX_HEADERS_PER_RECORD }, () => ["n", "v"]);
  const atCaps = {
    records: Array.from({ length: MAX_BATCH_RECORDS }, () => ({
      body: "",
      timestamp_ms: 1,
      headers,
    })),
    match_seq_num: 0,
    fencing_token: "t",
  };
  const parsed = parseJsonText(JSON.stringify(atCaps)) as { records: unknown[] };
  assert.equal(parsed.records.length, MAX_BATCH_RECORDS);

  const empties = `{"records":[${"{},".repeat(MAX_BODY_JSON_VALUES)}{}]}`;
  const e = assertHttpError(() => parseJsonText(empties), {
    status: 413,
    code: "payload_too_large",
  });
  assert.equal(e.fields.field, "body");
  assert.match(
    e.message,
    /more than \d+ JSON values.*10000 records of at most 100 headers.*smaller batches/,
  );
});
