import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { singleHeader, utf8HeaderText } from "./header-text.ts";

test("property: a header's bytes read one character each are the UTF-8 text sent", () => {
  fc.assert(
    fc.property(fc.string({ unit: "grapheme" }), (text) => {
      assert.equal(utf8HeaderText(Buffer.from(text).toString("latin1"), "h"), text);
    }),
  );
  for (const bytes of [[0xff], [0xc3], [0xed, 0xa0, 0x80]]) {
    assert.throws(
      () => utf8HeaderText(Buffer.from(bytes).toString("latin1"), "h"),
      (err: { code: string; message: string }) =>
        err.code === "bad_header" && err.message === "h: is not UTF-8 text",
    );
  }
});

test("a header's one value; one sent twice is refused, though Node joined it", () => {
  assert.equal(singleHeader({ h: "a, b" }, ["H", "a, b"], "h"), "a, b");
  assert.equal(singleHeader({}, [], "h"), undefined);
  assert.throws(() => singleHeader({ h: "a, b" }, ["h", "a", "H", "b"], "h"), /more than once/);
  assert.throws(() => singleHeader({ h: ["a", "b"] }, ["h", "a", "h", "b"], "h"), /more than once/);
});
