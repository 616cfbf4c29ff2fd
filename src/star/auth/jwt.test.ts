import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { test } from "node:test";
import fc from "fast-check";
import { JwtError, signJwt, verifyJwt } from "./jwt.ts";

const KEY = Buffer.from("0123456789abcdef0123456789abcdef");
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
const hs256 = (key: Uint8Array, input: string) =>
  createHmac("sha256", key).update(input).digest("base64url");
/** A token with any header and payload text, correctly signed with `key`. */
const forge = (header: string, payload: string, key: Uint8Array = KEY) => {
  const input = `${Buffer.from(header).toString("base64url")}.${Buffer.from(payload).toString("base64url")}`;
  return `${input}.${hs256(key, input)}`;
};

const claimsArb = fc.dictionary(fc.string(), fc.jsonValue());
const keyArb = fc.uint8Array({ minLength: 32, maxLength: 80 });

test("verifyJwt returns exactly the claims signJwt signed", () => {
  fc.assert(
    fc.property(claimsArb, keyArb, (claims, key) => {
      const token = signJwt(claims, key);
      assert.match(token, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
      assert.deepEqual(verifyJwt(token, key), JSON.parse(JSON.stringify(claims)));
    }),
  );
});

test("the header is the standard HS256 JWT header", () => {
  const [header] = signJwt({ a: 1 }, KEY).split(".");
  assert.deepEqual(JSON.parse(Buffer.from(header ?? "", "base64url").toString()), {
    alg: "HS256",
    typ: "JWT",
  });
});

test("verifies RFC 7515 appendix A.1 (an HS256 JWS made elsewhere)", () => {
  const token =
    "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9" +
    ".eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ" +
    ".dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
  const key = Buffer.from(
    "AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow",
    "base64url",
  );
  assert.deepEqual(verifyJwt(token, key), {
    iss: "joe",
    exp: 1300819380,
    "http://example.com/is_root": true,
  });
});

const CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ ";

test("changing any one character of a token, to anything, gets it refused", () => {
  const token = signJwt({ sub: "k1", scope: "nova:read:*", exp: 1e10 }, KEY);
  for (let i = 0; i < token.length; i++) {
    for (const c of CHARS) {
      if (c === token[i]) continue;
      const tampered = token.slice(0, i) + c + token.slice(i + 1);
      assert.throws(() => verifyJwt(tampered, KEY), JwtError, `position ${i} -> ${c}`);
    }
  }
  fc.assert(
    fc.property(claimsArb, fc.nat(), fc.string({ minLength: 1, maxLength: 1 }), (claims, at, c) => {
      const t = signJwt(claims, KEY);
      const i = at % t.length;
      fc.pre(c !== t[i]);
      assert.throws(() => verifyJwt(t.slice(0, i) + c + t.slice(i + 1), KEY), JwtError);
    }),
  );
});

test("adding or removing characters gets a token refused", () => {
  const token = signJwt({ sub: "k1" }, KEY);
  for (let i = 0; i < token.length; i++) {
    assert.throws(() => verifyJwt(token.slice(0, i) + token.slice(i + 1), KEY), JwtError);
    assert.throws(() => verifyJwt(`${token.slice(0, i)}A${token.slice(i)}`, KEY), JwtError);
  }
  assert.throws(() => verifyJwt(`${token}A`, KEY), JwtError);
});

test("another key's signature is refused", () => {
  fc.assert(
    fc.property(claimsArb, keyArb, keyArb, (claims, a, b) => {
      fc.pre(!Buffer.from(a).equals(Buffer.from(b)));
      assert.throws(() => verifyJwt(signJwt(claims, a), b), /signature does not verify/);
    }),
  );
});

test("another algorithm is refused, even correctly signed with the key", () => {
  const payload = JSON.stringify({ sub: "k1" });
  assert.throws(() => verifyJwt(forge(JSON.stringify({ alg: "none" }), payload), KEY), /alg/);
  assert.throws(() => verifyJwt(`${b64({ alg: "none" })}.${b64({ sub: "k1" })}.`, KEY), /alg/);
  assert.throws(() => verifyJwt(forge(JSON.stringify({ alg: "HS512" }), payload), KEY), /alg/);
  assert.throws(() => verifyJwt(forge(JSON.stringify({ typ: "JWT" }), payload), KEY), /alg/);
  assert.throws(
    () => verifyJwt(forge(JSON.stringify({ alg: "HS256", crit: ["exp"] }), payload), KEY),
    /critical/,
  );
  // A header without typ is still a JWS this verifier takes.
  assert.deepEqual(verifyJwt(forge(JSON.stringify({ alg: "HS256" }), payload), KEY), {
    sub: "k1",
  });
});

test("malformed tokens are refused with a reason", () => {
  const cases: [string, RegExp][] = [
    ["", /three base64url segments/],
    ["abc", /three base64url segments/],
    ["a.b", /three base64url segments/],
    ["a.b.c.d", /three base64url segments/],
    ["a b.c.d", /three base64url segments/],
    ["a+b.c.d", /three base64url segments/],
    [forge("not json", "{}"), /header is not JSON/],
    [forge("[1]", "{}"), /header is not a JSON object/],
    [forge('{"alg":"HS256"}', "not json"), /payload is not JSON/],
    [forge('{"alg":"HS256"}', "null"), /payload is not a JSON object/],
    [forge('{"alg":"HS256"}', '["a"]'), /payload is not a JSON object/],
  ];
  for (const [token, reason] of cases) {
    assert.throws(
      () => verifyJwt(token, KEY),
      (err: unknown) => {
        assert.ok(err instanceof JwtError, token);
        assert.match(err.message, reason, token);
        return true;
      },
    );
  }
});
