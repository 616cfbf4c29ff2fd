import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { decodeUtf8Exact } from "./utf8.ts";

test("property: any text comes back as written, a leading U+FEFF included", () => {
  fc.assert(
    fc.property(fc.string({ unit: "binary", maxLength: 60 }), fc.boolean(), (text, bom) => {
      const written = bom ? `\uFEFF${text}` : text;
      assert.equal(decodeUtf8Exact(Buffer.from(written, "utf8")), written);
    }),
  );
});

test("bytes that are not UTF-8 throw, never decode to U+FFFD", () => {
  for (const bytes of [[0xff], [0xc3], [0xed, 0xa0, 0x80], [0x61, 0x80]]) {
    assert.throws(() => decodeUtf8Exact(Uint8Array.from(bytes)), TypeError);
  }
});
