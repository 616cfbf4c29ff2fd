import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { tokenExpiresAtMs } from "./token-expiry.ts";

const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
const jwt = (claims: unknown) => `${part({ alg: "HS256", typ: "JWT" })}.${part(claims)}.c2ln`;

test("a bearer JWT's exp, in ms, milliseconds kept as the fraction", () => {
  assert.equal(tokenExpiresAtMs(`Bearer ${jwt({ exp: 1700000000.123 })}`), 1700000000123);
  assert.equal(tokenExpiresAtMs(`bearer ${jwt({ exp: 5, sub: "x" })}`), 5000);
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 2 ** 42 }), (ms) => {
      assert.equal(tokenExpiresAtMs(`Bearer ${jwt({ exp: ms / 1000 })}`), ms);
    }),
  );
});

test("anything else has no expiry to keep: no credential, api keys, malformed tokens, no exp", () => {
  for (const value of [
    undefined,
    "",
    "ApiKey ops:secret",
    "Bearer not-a-jwt",
    `Bearer ${jwt({ sub: "x" })}`,
    `Bearer ${jwt({ exp: "soon" })}`,
    `Bearer ${jwt(null)}`,
    `Bearer a.${Buffer.from("{not json").toString("base64url")}.c`,
    `Basic ${jwt({ exp: 5 })}`,
  ]) {
    assert.equal(tokenExpiresAtMs(value), undefined, String(value));
  }
});
