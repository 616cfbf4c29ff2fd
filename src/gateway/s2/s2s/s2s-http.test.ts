import assert from "node:assert/strict";
import { test } from "node:test";
import { parseS2ReadQuery } from "../read-query.ts";
import { idleEndMs, isS2s } from "./s2s-http.ts";

test("a session's wait: as asked; else 0 when bounded, else for ever", () => {
  assert.equal(idleEndMs(parseS2ReadQuery({ wait: "5" })), 5_000);
  assert.equal(idleEndMs(parseS2ReadQuery({ wait: "5", count: "3" })), 5_000);
  assert.equal(idleEndMs(parseS2ReadQuery({ count: "3" })), 0);
  assert.equal(idleEndMs(parseS2ReadQuery({ bytes: "3" })), 0);
  assert.equal(idleEndMs(parseS2ReadQuery({ until: "3" })), 0);
  assert.equal(idleEndMs(parseS2ReadQuery({})), undefined);
});

test("s2s is told by its media type, parameters and case aside", () => {
  assert.equal(isS2s("s2s/proto"), true);
  assert.equal(isS2s("S2S/Proto; charset=binary"), true);
  assert.equal(isS2s("application/protobuf"), false);
  assert.equal(isS2s(undefined), false);
});
