import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { assertHttpError } from "../errors/assert-http-error.test-helper.ts";
import { parseJsonBody, parseJsonText } from "./json-body.ts";
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
