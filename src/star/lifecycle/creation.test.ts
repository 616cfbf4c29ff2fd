import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { creationDigest, isRetryOf } from "./creation.ts";

const config = fc.dictionary(
  fc.constantFrom("class", "retention_max_age_ms", "batch_max_records", "content_type"),
  fc.oneof(fc.string(), fc.nat(), fc.boolean(), fc.constant(undefined)),
);
const made = (token: string, asked: object | null) => ({
  creation_token: token,
  creation_digest: creationDigest(token, asked),
});

test("the same token and the same config, in any field order, is a retry", () => {
  fc.assert(
    fc.property(fc.string({ minLength: 1 }), config, (token, asked) => {
      const reordered = Object.fromEntries(Object.entries(asked).reverse());
      assert.ok(isRetryOf(made(token, asked), token, reordered));
    }),
  );
});

test("the same token with any field asked otherwise is not a retry", () => {
  fc.assert(
    fc.property(
      fc.string({ minLength: 1 }),
      config,
      fc.constantFrom("class", "retention_max_age_ms", "extra"),
      fc.oneof(fc.string(), fc.nat()),
      (token, asked, field, value) => {
        fc.pre((asked as Record<string, unknown>)[field] !== value);
        assert.ok(!isRetryOf(made(token, asked), token, { ...asked, [field]: value }));
      },
    ),
  );
});

test("a field asked as absent and one asked as zero are different requests", () => {
  const first = made("t", { retention_max_age_ms: undefined });
  assert.ok(isRetryOf(first, "t", {}));
  assert.ok(isRetryOf(first, "t", null));
  assert.ok(!isRetryOf(first, "t", { retention_max_age_ms: "0" }));
});

test("proto-loader's oneof markers are not part of what was asked", () => {
  const first = made("t", {
    retention_max_age_ms: "5",
    _retention_max_age_ms: "retention_max_age_ms",
  });
  assert.ok(isRetryOf(first, "t", { retention_max_age_ms: "5" }));
});

test("another token, or none, is never a retry", () => {
  assert.ok(!isRetryOf(made("t", {}), "u", {}));
  assert.ok(!isRetryOf(made("", {}), "", {}));
  assert.equal(creationDigest("", { class: "CLASS_EXPRESS" }), "");
});

test("a descriptor from before digests were kept converges on its token alone", () => {
  const legacy = { creation_token: "t", creation_digest: "" };
  assert.ok(isRetryOf(legacy, "t", { class: "CLASS_EXPRESS" }));
  assert.ok(!isRetryOf(legacy, "u", {}));
});
