import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { MAX_CREATION_TOKEN_HEADER_BYTES } from "../../contract/wire-limits.ts";
import { creationToken } from "./creation-token.ts";

const NAME = "nova-request-token";
/** A token's header as Node gives it: its bytes read one character each. */
const sent = (bytes: Buffer) => {
  const value = bytes.toString("latin1");
  return { headers: { [NAME]: value }, raw: [NAME, value] };
};

test("property: a token of UTF-8 text up to the limit is the text sent", () => {
  fc.assert(
    fc.property(fc.string({ unit: "grapheme", minLength: 1 }), (text) => {
      const bytes = Buffer.from(text);
      fc.pre(bytes.length <= MAX_CREATION_TOKEN_HEADER_BYTES);
      const { headers, raw } = sent(bytes);
      assert.equal(creationToken(headers, raw, NAME), text);
    }),
  );
  assert.equal(creationToken({}, [], NAME), "");
});

test("a token over the limit in bytes, not UTF-8, or given twice is a bad header", () => {
  const over = sent(Buffer.from("é".repeat(MAX_CREATION_TOKEN_HEADER_BYTES / 2 + 1)));
  assert.throws(
    () => creationToken(over.headers, over.raw, NAME),
    (err: { code: string; message: string }) =>
      err.code === "bad_header" && /at most 256 bytes, not 258/.test(err.message),
  );
  const latin1 = sent(Buffer.from([0x61, 0xff]));
  assert.throws(() => creationToken(latin1.headers, latin1.raw, NAME), /is not UTF-8 text/);
  // Node joins a repeated header's values, which a token may hold: the raw list tells.
  const raw = [NAME, "a", NAME, "b"];
  assert.throws(() => creationToken({ [NAME]: "a, b" }, raw, NAME), /given more than once/);
  assert.throws(() => creationToken({ [NAME]: ["a", "b"] }, raw, NAME), /given more than once/);
});
