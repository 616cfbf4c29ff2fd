import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { assertHttpError } from "../errors/assert-http-error.test-helper.ts";
import { invalidArgument } from "../errors/index.ts";
import { checkBucketName, checkStreamKey } from "./names.ts";

const inner = fc.string({ unit: fc.constantFrom(..."abcxyz0189-"), minLength: 1, maxLength: 46 });
const edge = fc.constantFrom(..."az09");

test("bucket names: 3 to 48 of a-z 0-9 -, no hyphen at either end", () => {
  fc.assert(
    fc.property(edge, inner, edge, (a, mid, b) => {
      const name = `${a}${mid}${b}`;
      assert.equal(checkBucketName(name), name);
    }),
  );
  for (const name of [
    "ab",
    "a".repeat(49),
    "-abc",
    "abc-",
    "ABC",
    "a_b",
    "a.b",
    "ab c",
    "ab/c",
    "été",
  ]) {
    assertHttpError(() => checkBucketName(name), {
      status: 400,
      code: "bad_path",
      field: "bucket",
    });
  }
  assertHttpError(() => checkBucketName(7), { status: 400, code: "bad_path", field: "bucket" });
  assertHttpError(() => checkBucketName("x", "name", invalidArgument), {
    status: 400,
    code: "invalid_argument",
    field: "name",
  });
});

test("stream keys: any UTF-8 of 1 to 512 bytes but . and ..", () => {
  const key = fc
    .string({ unit: "binary", minLength: 1, maxLength: 128 })
    .filter((k) => k !== "." && k !== "..");
  fc.assert(fc.property(key, (k) => assert.equal(checkStreamKey(k), k)));
  for (const dots of [".", ".."]) {
    assertHttpError(() => checkStreamKey(dots), { status: 400, code: "bad_path", field: "key" });
  }
  assert.equal(checkStreamKey("..."), "...");
  assert.equal(checkStreamKey("a/b%2F c\u0000"), "a/b%2F c\u0000");
  assert.equal(checkStreamKey(`${"€".repeat(170)}ab`).length, 172); // 512 bytes
  for (const key of ["", "x".repeat(513), "€".repeat(171), "\ud800"]) {
    assertHttpError(() => checkStreamKey(key), { status: 400, code: "bad_path", field: "key" });
  }
});
