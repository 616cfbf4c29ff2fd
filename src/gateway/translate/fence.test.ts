import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { MAX_FENCING_TOKEN_BYTES } from "../../contract/wire-limits.ts";
import { assertHttpError } from "../errors/assert-http-error.test-helper.ts";
import { fenceBodyFromJson, readFencingToken } from "./fence.ts";

test("any token of at most 48 UTF-8 bytes passes unchanged; empty clears", () => {
  fc.assert(
    fc.property(fc.string({ unit: "binary", maxLength: 12 }), (token) => {
      assert.equal(fenceBodyFromJson({ fencing_token: token }).fencing_token, token);
    }),
  );
  assert.deepEqual(fenceBodyFromJson({ fencing_token: "" }), { fencing_token: "" });
  assert.equal(readFencingToken("x".repeat(MAX_FENCING_TOKEN_BYTES), "t").length, 48);
});

test("bad fence bodies are 400 invalid_argument naming the field", () => {
  for (const [body, field] of [
    [{}, "fencing_token"],
    [{ fencing_token: null }, "fencing_token"],
    [{ fencing_token: "x".repeat(49) }, "fencing_token"],
    [{ fencing_token: "😀".repeat(13) }, "fencing_token"],
    [{ fencing_token: "\ud800" }, "fencing_token"],
    [{ fencing_token: "", other: 1 }, "other"],
    [null, "body"],
  ] as const) {
    assertHttpError(() => fenceBodyFromJson(body), {
      status: 400,
      code: "invalid_argument",
      field,
    });
  }
});
