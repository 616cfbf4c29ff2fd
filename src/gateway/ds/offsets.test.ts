import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { HttpError } from "../errors/index.ts";
import { offsetOf, parseOffset } from "./offsets.ts";

const seq = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });

test("an offset reads back as its seq_num", () => {
  fc.assert(
    fc.property(seq, (s) => assert.deepEqual(parseOffset(offsetOf(s)), { at: "seq", seq: s })),
  );
});

test("offsets sort as their seq_nums, and are never a sentinel", () => {
  fc.assert(
    fc.property(seq, seq, (a, b) => {
      const [x, y] = [offsetOf(a), offsetOf(b)];
      assert.equal(x < y, a < b);
      assert.equal(x.length, 33);
      assert.ok(x !== "-1" && x !== "now");
      assert.match(x, /^[0-9a-f]{16}_0{16}$/);
    }),
  );
});

test("the protocol's reference shape: zero is 0000000000000000_0000000000000000", () => {
  assert.equal(offsetOf(0n), "0000000000000000_0000000000000000");
  assert.equal(offsetOf(255n), "00000000000000ff_0000000000000000");
  assert.equal(offsetOf(2n ** 64n - 1n), "ffffffffffffffff_0000000000000000");
});

test("absent and -1 are the start, now is the tail", () => {
  assert.deepEqual(parseOffset(undefined), { at: "start" });
  assert.deepEqual(parseOffset("-1"), { at: "start" });
  assert.deepEqual(parseOffset("now"), { at: "now" });
});

test("anything else is a 400 naming the field", () => {
  for (const bad of [
    "",
    "-2",
    "0",
    "abc",
    "1".repeat(21),
    "99999999999999999999",
    "0000000000000000000x",
    "NOW",
  ]) {
    assert.throws(
      () => parseOffset(bad),
      (err: unknown) =>
        err instanceof HttpError && err.status === 400 && /^offset: /.test(err.message),
      bad,
    );
  }
});
