import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { assertHttpError } from "../errors/assert-http-error.test-helper.ts";
import { badBase64 } from "../errors/index.ts";
import { base64Problem, decodeBase64, encodeBase64 } from "./base64.ts";

const decode = (text: string) => decodeBase64(text, "records[3].headers[1].value", badBase64);
const urlSafe = (s: string) => s.replaceAll("+", "-").replaceAll("/", "_");

test("encode then decode is the identity, in every accepted spelling", () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
      const standard = encodeBase64(bytes);
      assert.equal(standard, Buffer.from(bytes).toString("base64"));
      for (const spelling of [
        standard,
        standard.replace(/=+$/, ""),
        urlSafe(standard),
        urlSafe(standard).replace(/=+$/, ""),
      ]) {
        assert.deepEqual(new Uint8Array(decode(spelling)), bytes);
      }
    }),
  );
});

test("a subarray encodes only its own bytes", () => {
  const whole = new Uint8Array([1, 2, 3, 4, 5]);
  assert.equal(encodeBase64(whole.subarray(1, 3)), Buffer.from([2, 3]).toString("base64"));
});

test("whatever is accepted is canonical: it re-encodes to itself", () => {
  fc.assert(
    fc.property(fc.string({ unit: fc.constantFrom(..."AQgw/+-_=ab "), maxLength: 12 }), (text) => {
      let bytes: Buffer;
      try {
        bytes = decode(text);
      } catch {
        return;
      }
      let again = encodeBase64(bytes);
      if (/[-_]/.test(text)) again = urlSafe(again);
      if (!text.endsWith("=")) again = again.replace(/=+$/, "");
      assert.equal(again, text);
    }),
  );
});

test("property: a text is accepted exactly when the rule, spelled out, finds nothing wrong", () => {
  fc.assert(
    fc.property(
      fc.oneof(
        fc.string({
          unit: fc.constantFrom(..."AQgw/+-_=ab \n\u00c1\u0000😀\u0142\u4e41\u012b"),
          maxLength: 16,
        }),
        fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b).toString("base64")),
        fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b).toString("base64url")),
      ),
      (text) => {
        let accepted = true;
        try {
          decode(text);
        } catch {
          accepted = false;
        }
        assert.equal(accepted, base64Problem(text) === undefined, JSON.stringify(text));
      },
    ),
    { numRuns: 2000 },
  );
});

test("invalid base64 is 400 bad_base64 naming the field and the reason", () => {
  const cases: [string, RegExp][] = [
    ["QUJD RA==", /character " " at offset 4/],
    ["QUJD\nRA==", /character "\\n" at offset 4/],
    ["QUJ*", /character "\*" at offset 3/],
    ["QUJDé===", /character "é"/],
    ["QUłD", /character "ł" at offset 2/],
    ["QU=D", /"=" before the end, at offset 2/],
    ["Q===", /"=" before the end, at offset 1/],
    ["a+b_", /mixes the standard/],
    ["QUJDR", /impossible length/],
    ["QUJDRA=", /padded length/],
    ["QQ=", /padded length/],
    ["QR==", /non-zero unused bits/],
    ["QUF", /non-zero unused bits/],
    ["QUI=", /^(?!.*unused)/],
  ];
  for (const [text, reason] of cases) {
    if (text === "QUI=") {
      assert.deepEqual([...decode(text)], [0x41, 0x42]);
      continue;
    }
    const e = assertHttpError(() => decode(text), {
      status: 400,
      code: "bad_base64",
      field: "records[3].headers[1].value",
    });
    assert.match(e.message, reason, text);
  }
  assert.deepEqual([...decode("")], []);
});
