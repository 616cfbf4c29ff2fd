import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { assertHttpError } from "../errors/assert-http-error.test-helper.ts";
import { tokenRequestFromJson, tokenResponseToJson } from "./token-json.ts";

test("a token request narrowed to a bucket or to a scope", () => {
  assert.deepEqual(tokenRequestFromJson({ key_id: "k", secret: "s", bucket: "logs" }), {
    key_id: "k",
    secret: "s",
    bucket: "logs",
  });
  assert.deepEqual(
    tokenRequestFromJson({ key_id: "k", secret: "s", scope: "nova:read:logs/*", ttl_seconds: 600 }),
    {
      key_id: "k",
      secret: "s",
      scope: "nova:read:logs/*",
      ttl_seconds: 600,
    },
  );
});

test("bad token requests are 400 invalid_argument naming the field", () => {
  for (const [body, field] of [
    [{ secret: "s", bucket: "logs" }, "key_id"],
    [{ key_id: "", secret: "s", bucket: "logs" }, "key_id"],
    [{ key_id: "k", bucket: "logs" }, "secret"],
    [{ key_id: "k", secret: "s" }, "bucket|scope"],
    [{ key_id: "k", secret: "s", bucket: "logs", scope: "x" }, "bucket|scope"],
    [{ key_id: "k", secret: "s", bucket: "L" }, "bucket"],
    [{ key_id: "k", secret: "s", scope: "" }, "scope"],
    [{ key_id: "k", secret: "s", scope: "x", ttl_seconds: -1 }, "ttl_seconds"],
    [{ key_id: "k", secret: "s", scope: "x", token: "t" }, "token"],
  ] as const) {
    assertHttpError(() => tokenRequestFromJson(body), {
      status: 400,
      code: "invalid_argument",
      field,
    });
  }
});

test("the response's expiry is exact in both int64 modes", () => {
  fc.assert(
    fc.property(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), (t) => {
      assert.deepEqual(
        tokenResponseToJson({ token: "jwt", expires_at_unix_ms: String(t) }, "number"),
        { token: "jwt", expires_at_unix_ms: t },
      );
      assert.deepEqual(
        tokenResponseToJson({ token: "jwt", expires_at_unix_ms: String(t) }, "string"),
        { token: "jwt", expires_at_unix_ms: String(t) },
      );
    }),
  );
});
