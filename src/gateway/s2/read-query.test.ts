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
});

test("times past int64, which S2 takes, are past every record: the tail, and no until", () => {
  const u64 = "18446744073709551615";
  assert.deepEqual(parseS2ReadQuery({ timestamp: u64 }).query.start, {
    timestamp_ms: "9223372036854775807",
  });
  const q = parseS2ReadQuery({ seq_num: "0", until: u64 });
  assert.equal(q.query.until_ms, undefined, "no bound for the star");
  assert.equal(bounded(q), true, "a bound as S2 counts them: a session ends once caught up");
  assert.equal(parseS2ReadQuery({ until: "9223372036854775807" }).untilMs, 9223372036854775807n);
});

test("a session's wait: as asked; else 0 when bounded, else for ever", () => {
  assert.equal(idleEndMs(parseS2ReadQuery({ wait: "5" })), 5_000);
  assert.equal(idleEndMs(parseS2ReadQuery({ wait: "5", count: "3" })), 5_000);
  assert.equal(idleEndMs(parseS2ReadQuery({ count: "3" })), 0);
  assert.equal(idleEndMs(parseS2ReadQuery({ bytes: "3" })), 0);
  assert.equal(idleEndMs(parseS2ReadQuery({ until: "3" })), 0);
  assert.equal(idleEndMs(parseS2ReadQuery({})), undefined);
});
