import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import type { Record__Output } from "../../gen/nova/v1/Record.ts";
import { renderBody, renderingOf, renderSse } from "./render.ts";

const rec = (body: string | Uint8Array, seq = 0): Record__Output => ({
  seq_num: String(seq),
  timestamp_ms: "0",
  body: Buffer.from(body),
  headers: [],
});

/** The data of SSE events as the protocol's clients join them. */
function sseData(text: string): string[] {
  return text
    .split("\n\n")
    .filter((block) => block !== "")
    .map((block) =>
      block
        .split("\n")
        .filter((l) => l.startsWith("data:"))
        .map((l) => l.slice(5))
        .map((l) => (l.startsWith(" ") ? l.slice(1) : l))
        .join("\n"),
    );
}

test("JSON and text/* are text, anything else base64", () => {
  assert.equal(renderingOf("application/json; charset=utf-8"), "json");
  assert.equal(renderingOf("TEXT/Plain"), "text");
  assert.equal(renderingOf("application/octet-stream"), "base64");
  assert.equal(renderingOf("application/ndjson"), "base64");
});

test("a page is the bytes in order, or one JSON array", () => {
  assert.equal(renderBody([rec("ab"), rec("c")], false).toString(), "abc");
  assert.equal(renderBody([rec('{"a":1}'), rec("2")], true).toString(), '[{"a":1},2]');
  assert.equal(renderBody([], true).toString(), "[]");
  assert.equal(renderBody([], false).length, 0);
});

test("SSE data events carry any bytes as base64, and text with its newlines", () => {
  fc.assert(
    fc.property(fc.array(fc.uint8Array(), { minLength: 1, maxLength: 5 }), (bodies) => {
      const [data] = sseData(
        renderSse(
          bodies.map((b) => rec(b)),
          "base64",
        ),
      );
      assert.deepEqual(Buffer.from(data ?? "", "base64"), Buffer.concat(bodies));
    }),
  );
  fc.assert(
    fc.property(
      fc.string({ unit: "grapheme" }).filter((s) => !s.includes("\r")),
      (s) => {
        const [data] = sseData(renderSse([rec(s)], "text"));
        assert.equal(data, s);
      },
    ),
  );
});
