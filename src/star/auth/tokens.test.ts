import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { signJwt } from "./jwt.ts";
import { parseScope } from "./scope.ts";
import {
  DEFAULT_TTL_SECONDS,
  effectiveTtlSeconds,
  issueToken,
  MAX_TTL_SECONDS,
  readToken,
  TokenError,
} from "./tokens.ts";

const KEY = Buffer.from("the signing key of these tests, 32+ bytes");
const SCOPE = parseScope("nova:read:* nova:append:bk1/logs%2F*");

test("readToken returns what issueToken granted, until the last millisecond", () => {
  fc.assert(
    fc.property(
      fc.string({ minLength: 1 }),
      fc.integer({ min: 0, max: 4_000_000_000_000 }),
      fc.integer({ min: 1, max: MAX_TTL_SECONDS }),
      (keyId, nowMs, ttlSeconds) => {
        const { token, expiresAtMs } = issueToken(KEY, { keyId, scope: SCOPE, nowMs, ttlSeconds });
        assert.equal(expiresAtMs, nowMs + ttlSeconds * 1000);
        for (const at of [nowMs, expiresAtMs - 1]) {
          assert.deepEqual(readToken(KEY, token, at), { keyId, scope: SCOPE, expiresAtMs });
        }
        assert.throws(() => readToken(KEY, token, expiresAtMs), /expired/);
      },
    ),
  );
});

test("the token's claims are sub, the canonical scope, iat and exp in seconds", () => {
  const { token } = issueToken(KEY, {
    keyId: "k1",
    scope: parseScope("nova:read"),
    nowMs: 1_700_000_000_123,
    ttlSeconds: 60,
  });
  const payload = JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString());
  assert.deepEqual(payload, {
    sub: "k1",
    scope: "nova:read:*",
    iat: 1_700_000_000.123,
    exp: 1_700_000_060.123,
  });
});

test("ttl_seconds: 0 is 15 minutes, anything over an hour is an hour", () => {
  assert.equal(DEFAULT_TTL_SECONDS, 900);
  assert.equal(effectiveTtlSeconds(0), 900);
  assert.equal(effectiveTtlSeconds(1), 1);
  assert.equal(effectiveTtlSeconds(3600), 3600);
  assert.equal(effectiveTtlSeconds(3601), 3600);
  assert.equal(effectiveTtlSeconds(2 ** 32 - 1), 3600);
});

test("tokens without the claims, with a bad scope, or another key's are refused", () => {
  const cases: [string, RegExp][] = [
    [signJwt({ scope: "nova:read", exp: 1e10 }, KEY), /sub, scope or exp/],
    [signJwt({ sub: "k", exp: 1e10 }, KEY), /sub, scope or exp/],
    [signJwt({ sub: "k", scope: "nova:read" }, KEY), /sub, scope or exp/],
    [signJwt({ sub: "k", scope: "nova:read", exp: "1e10" }, KEY), /sub, scope or exp/],
    [signJwt({ sub: "k", scope: "nova:write", exp: 1e10 }, KEY), /scope.*action/],
    [
      signJwt({ sub: "k", scope: "nova:read", exp: 1e10 }, Buffer.from("x".repeat(32))),
      /signature/,
    ],
    ["not.a.token!", /three base64url segments/],
  ];
  for (const [token, reason] of cases) {
    assert.throws(
      () => readToken(KEY, token, 0),
      (err: unknown) => err instanceof TokenError && reason.test(err.message),
    );
  }
});
