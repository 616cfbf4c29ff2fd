import assert from "node:assert/strict";
import { test } from "node:test";
import { isS2s } from "./s2s-http.ts";

test("s2s is told by its media type, parameters and case aside", () => {
  assert.equal(isS2s("s2s/proto"), true);
  assert.equal(isS2s("S2S/Proto; charset=binary"), true);
  assert.equal(isS2s("application/protobuf"), false);
  assert.equal(isS2s(undefined), false);
});
