import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { MAX_RECORD_BYTES } from "../../contract/wire-limits.ts";
import { HttpError } from "../errors/index.ts";
import { cutBytes, messages } from "./messages.ts";

const pieces = fc.integer({ min: 4, max: 64 });

test("the pieces are the body, in order, none empty and none over max", () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 400 }), pieces, fc.boolean(), (bytes, max, text) => {
      const body = Buffer.from(bytes);
      const cut = cutBytes(body, max, text);
      assert.deepEqual(Buffer.concat(cut), body);
      for (const piece of cut) assert.ok(piece.length > 0 && piece.length <= max);
    }),
  );
});

test("bytes are cut at max exactly; text between characters, each piece whole UTF-8", () => {
  fc.assert(
    fc.property(fc.string({ unit: "binary", maxLength: 200 }), pieces, (s, max) => {
      const body = Buffer.from(s);
      const bytes = cutBytes(body, max, false);
      for (const piece of bytes.slice(0, -1)) assert.equal(piece.length, max);
      for (const piece of cutBytes(body, max, true)) {
        assert.deepEqual(Buffer.from(piece.toString("utf8")), piece);
      }
    }),
  );
});

test("text that is not UTF-8 is still cut within max, its bytes kept", () => {
  const body = Buffer.from([0x61, 0x80, 0x80, 0x80, 0x80, 0x80, 0x62]);
  assert.deepEqual(
    cutBytes(body, 4, true).map((p) => [...p]),
    [
      [0x61, 0x80, 0x80, 0x80],
      [0x80, 0x80, 0x62],
    ],
  );
});

test("a text/* body over one record is cut before a character that would straddle the cut", () => {
  const body = Buffer.concat([Buffer.alloc(MAX_RECORD_BYTES - 1, "a"), Buffer.from("éz")]);
  const [first, second] = messages(body, "text/plain; charset=utf-8", "append");
  assert.equal(first?.length, MAX_RECORD_BYTES - 1);
  assert.equal(second?.toString(), "éz");
  const bytes = messages(body, "application/octet-stream", "append");
  assert.equal(bytes[0]?.length, MAX_RECORD_BYTES);
});

test("JSON mode keeps one record per message and refuses a message over one record", () => {
  assert.deepEqual(messages(Buffer.from('[1, "two"]'), "application/json", "append").map(String), [
    "1",
    '"two"',
  ]);
  const big = Buffer.from(`["${"x".repeat(MAX_RECORD_BYTES)}"]`);
  assert.throws(
    () => messages(big, "application/json", "append"),
    (err: unknown) =>
      err instanceof HttpError && err.status === 413 && /message 0/.test(err.message),
  );
});
