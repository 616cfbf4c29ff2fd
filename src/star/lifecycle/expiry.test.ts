import assert from "node:assert/strict";
import { test } from "node:test";
import { newBucket, newStream } from "./config.ts";
import { expiryDueMs, hasExpired, StreamUses } from "./expiry.ts";

const bucket = newBucket("b-1", null, "", 0);
const stream = (
  config: { expire_idle_ms?: string; expires_at_unix_ms?: string; content_type?: string },
  id = "s-1",
) =>
  newStream(
    bucket,
    "k",
    {
      class: "CLASS_UNSPECIFIED",
      producer_policy: "PRODUCER_POLICY_UNSPECIFIED",
      timestamping_mode: "TIMESTAMPING_MODE_UNSPECIFIED",
      content_type: "text/plain",
      expire_idle_ms: "0",
      expires_at_unix_ms: "0",
      fork_origin: "",
      ...config,
    },
    "",
    id,
    1_000,
  );

test("a stream without expiry never expires", () => {
  const uses = new StreamUses(0);
  assert.equal(hasExpired(stream({}), uses, Number.MAX_SAFE_INTEGER, true), false);
});

test("a fixed instant expires on every member, at and after it", () => {
  const s = stream({ expires_at_unix_ms: "5000" });
  const uses = new StreamUses(0);
  assert.equal(hasExpired(s, uses, 4_999, false), false);
  assert.equal(hasExpired(s, uses, 5_000, false), true);
  assert.equal(hasExpired(s, uses, 5_000, true), true);
});

test("the idle window counts from the last use, creation, or the star's start", () => {
  const s = stream({ expire_idle_ms: "1000" });
  const uses = new StreamUses(0);
  assert.equal(hasExpired(s, uses, 1_999, true), false, "counted from creation at 1000");
  assert.equal(hasExpired(s, uses, 2_000, true), true);
  uses.touch(s, 1_900);
  assert.equal(hasExpired(s, uses, 2_899, true), false, "a use restarts the window");
  assert.equal(hasExpired(s, uses, 2_900, true), true);
  assert.equal(hasExpired(s, uses, 10_000, false), false, "only the leader judges idleness");
  const restarted = new StreamUses(50_000);
  assert.equal(hasExpired(s, restarted, 50_999, true), false, "a new leader counts from its start");
});

test("only idle-expiring streams are remembered, and at most `kept` of them", () => {
  const uses = new StreamUses(0, 2);
  uses.touch(stream({}), 1);
  assert.equal(uses.size, 0);
  const [a, b, c] = ["a", "b", "c"].map((id) => stream({ expire_idle_ms: "10" }, id));
  uses.touch(a as never, 1);
  uses.touch(b as never, 2);
  uses.touch(a as never, 3);
  uses.touch(c as never, 4);
  assert.equal(uses.size, 2);
  assert.equal(uses.lastUse(a as never), 3, "touched last but one: kept");
  assert.equal(uses.lastUse(b as never), 1_000, "the least recent is forgotten");
  uses.forget("a");
  assert.equal(uses.lastUse(a as never), 1_000);
});

test("a forgotten stream never expires early: its last use reads no earlier than its own", () => {
  const uses = new StreamUses(0, 2);
  const [s, x, y] = ["s", "x", "y"].map((id) => stream({ expire_idle_ms: "60000" }, id));
  uses.touch(s as never, 5_000);
  uses.touch(x as never, 6_000);
  uses.touch(y as never, 7_000);
  assert.equal(uses.size, 2);
  assert.equal(uses.lastUse(s as never), 5_000);
  assert.equal(hasExpired(s as never, uses, 64_999, true), false);
  assert.equal(hasExpired(s as never, uses, 65_000, true), true);
});

test("a stream takes one expiry and a content type of visible ASCII", () => {
  assert.throws(
    () => stream({ expire_idle_ms: "1", expires_at_unix_ms: "2" }),
    /mutually exclusive/,
  );
  assert.throws(() => stream({ content_type: "text/plain\n" }), /content_type/);
});

test("expiryDueMs: the fixed instant, or the idle window's end after the last use; none without expiry", () => {
  assert.equal(expiryDueMs(stream({}), 7_000), undefined);
  assert.equal(expiryDueMs(stream({ expires_at_unix_ms: "5000" }), 7_000), 5_000);
  assert.equal(expiryDueMs(stream({ expire_idle_ms: "1000" }), 7_000), 8_000);
});
