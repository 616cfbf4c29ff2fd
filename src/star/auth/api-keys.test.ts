import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import {
  type ApiKey,
  ApiKeyError,
  formatApiKey,
  indexApiKeys,
  parseApiKey,
  parseApiKeysFile,
} from "./api-keys.ts";
import { parseScope } from "./scope.ts";

const keyArb: fc.Arbitrary<ApiKey> = fc
  .tuple(
    fc.stringMatching(/^[A-Za-z0-9._-]{1,64}$/),
    fc.stringMatching(/^[^\s,]{1,40}$/),
    fc.constantFrom("nova:read:*", "nova:*:bk1 nova:read:bk2/a%2F*", "nova:admin:*"),
  )
  .map(([id, secret, scope]) => ({ id, secret, scope: parseScope(scope) }));

test("parseApiKey(formatApiKey(k)) is k", () => {
  fc.assert(
    fc.property(keyArb, (key) => {
      assert.deepEqual(parseApiKey(formatApiKey(key), "x"), key);
    }),
  );
});

test("fields are separated by runs of spaces or tabs", () => {
  assert.deepEqual(parseApiKey("  k1 \t s3cr3t   nova:read:bk1  nova:append:bk1 ", "x"), {
    id: "k1",
    secret: "s3cr3t",
    scope: parseScope("nova:read:bk1 nova:append:bk1"),
  });
});

test("a file: one key a line, blank lines and # comments skipped, CRLF taken", () => {
  const text =
    "# ops keys\n\nk1 secret-1 nova:*:*\r\n   # indented comment\nk2 secret-2 nova:read:bk1\n";
  assert.deepEqual(
    parseApiKeysFile(text, "keys.txt").map((k) => k.id),
    ["k1", "k2"],
  );
});

test("bad entries are refused with where they are, never with the secret", () => {
  const cases: [string, RegExp][] = [
    ["k/1 secret nova:read", /keys.txt:3: the key id/],
    ["k1", /keys.txt:3: expected KEY_ID SECRET GRANT/],
    ["k1 TOPSECRET", /keys.txt:3: expected KEY_ID SECRET GRANT/],
    ["k1 TOPSECRET nova:write:*", /keys.txt:3 \(key k1\): "nova:write:\*": the action/],
    // A secret with a blank in it: its second half is never quoted as a bad grant.
    ["k1 TOPSECRET pa55w0rd nova:read:*", /keys.txt:3 \(key k1\): field 3 is not a grant/],
    ["k1 TOPSECRET nova:read:* pa55w0rd", /keys.txt:3 \(key k1\): field 4 is not a grant/],
  ];
  for (const [line, reason] of cases) {
    assert.throws(
      () => parseApiKeysFile(`# a\nk0 s nova:read\n${line}\n`, "keys.txt"),
      (err: unknown) => {
        assert.ok(err instanceof ApiKeyError);
        assert.match(err.message, reason);
        assert.doesNotMatch(err.message, /TOPSECRET|pa55w0rd/);
        return true;
      },
    );
  }
});

test("an id given twice is refused", () => {
  const k = parseApiKey("k1 a nova:read", "x");
  assert.equal(indexApiKeys([k]).get("k1"), k);
  assert.throws(() => indexApiKeys([k, { ...k, secret: "b" }]), /k1 is given more than once/);
});
