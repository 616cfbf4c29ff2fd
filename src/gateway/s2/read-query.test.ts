import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { bounded, idleEndMs, parseS2ReadQuery } from "./read-query.ts";

const refused = (status: number, code: string) => (err: { status: number; code: string }) =>
  err.status === status && err.code === code;

test("S2's starts and bounds become nova's query, digits exact", () => {
  fc.assert(
    fc.property(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), (n) => {
      const q = parseS2ReadQuery({ seq_num: n.toString(), count: "5", bytes: "100" });
      assert.deepEqual(q.query.start, { seq_num: n.toString() });
      assert.equal(q.count, 5n);
      assert.equal(q.bytes, 100n);
      assert.equal(bounded(q), true);
    }),
  );
  assert.deepEqual(parseS2ReadQuery({}).query.start, { tail_offset: "0" });
  assert.equal(bounded(parseS2ReadQuery({})), false);
  const q = parseS2ReadQuery({ timestamp: "10", until: "20", wait: "5", clamp: "true" });
  assert.deepEqual(q.query.start, { timestamp_ms: "10" });
  assert.equal(q.query.until_ms, "20");
  assert.equal(q.wait, 5);
  assert.equal(q.query.clamp, true);
});

test("bad read queries are S2's errors", () => {
  assert.throws(() => parseS2ReadQuery({ seq_num: "1", timestamp: "2" }), refused(422, "invalid"));
  assert.throws(() => parseS2ReadQuery({ timestamp: "5", until: "5" }), refused(422, "invalid"));
  assert.throws(() => parseS2ReadQuery({ count: "-1" }), refused(400, "bad_query"));
  assert.throws(() => parseS2ReadQuery({ wait: "61" }), refused(400, "bad_query"));
  assert.throws(() => parseS2ReadQuery({ clamp: "yes" }), refused(400, "bad_query"));
  assert.throws(
    () => parseS2ReadQuery({ timestamp: "9223372036854775808" }),
    refused(422, "invalid"),
  );
});

test("a session's wait: as asked; else 0 when bounded, else for ever", () => {
  assert.equal(idleEndMs(parseS2ReadQuery({ wait: "5" })), 5_000);
  assert.equal(idleEndMs(parseS2ReadQuery({ wait: "5", count: "3" })), 5_000);
  assert.equal(idleEndMs(parseS2ReadQuery({ count: "3" })), 0);
  assert.equal(idleEndMs(parseS2ReadQuery({ bytes: "3" })), 0);
  assert.equal(idleEndMs(parseS2ReadQuery({ until: "3" })), 0);
  assert.equal(idleEndMs(parseS2ReadQuery({})), undefined);
});
