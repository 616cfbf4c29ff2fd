import assert from "node:assert/strict";
import { test } from "node:test";
import { mediaType, sameMediaType } from "./media-type.ts";

test("media types compare without case, parameters or spaces", () => {
  assert.equal(mediaType("Text/Plain; charset=UTF-8"), "text/plain");
  assert.equal(mediaType(" application/json "), "application/json");
  assert.equal(mediaType(""), "");
  assert.ok(sameMediaType("APPLICATION/JSON", "application/json;charset=utf-8"));
  assert.ok(!sameMediaType("text/plain", "application/json"));
  assert.ok(!sameMediaType("text/plain", "text/plainx"));
});
