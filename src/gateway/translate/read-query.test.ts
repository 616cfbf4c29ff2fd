import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { PAGE_MAX_BYTES, PAGE_MAX_RECORDS } from "../../contract/wire-limits.ts";
import { assertHttpError } from "../errors/assert-http-error.test-helper.ts";
import { parseReadQuery, readRequestFields } from "./read-query.ts";

test("no start reads from the tail, one page at most", () => {
  const q = parseReadQuery({});
  assert.deepEqual(q, { start: {}, clamp: false, wait: 0, int64: "number" });
  assert.deepEqual(readRequestFields(q), {
    count: PAGE_MAX_RECORDS,
    bytes: String(PAGE_MAX_BYTES),
    clamp: false,
  });
});

test("each start is exact", () => {
  fc.assert(
    fc.property(
      fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
      fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
      (u, i) => {
        assert.deepEqual(
          readRequestFields(parseReadQuery({ seq_num: String(u) })).seq_num,
          String(u),
        );
        assert.deepEqual(
          readRequestFields(parseReadQuery({ tail_offset: String(u) })).tail_offset,
          String(u),
        );
        assert.deepEqual(
          readRequestFields(parseReadQuery({ timestamp_ms: String(i) })).timestamp_ms,
          String(i),
        );
        assert.deepEqual(
          readRequestFields(parseReadQuery({ until_ms: String(i) })).until_ms,
          String(i),
        );
      },
    ),
  );
});

test("bounds, clamp, wait and int64", () => {
  const q = parseReadQuery({
    seq_num: "5",
    count: "10",
    bytes: "100",
    until_ms: "-3",
    clamp: "true",
    wait: "60",
    int64: "string",
  });
  assert.deepEqual(q, {
    start: { seq_num: "5" },
    count: 10n,
    bytes: 100n,
    until_ms: "-3",
    clamp: true,
    wait: 60,
    int64: "string",
  });
  assert.deepEqual(readRequestFields(q), {
    seq_num: "5",
    count: 10,
    bytes: "100",
    until_ms: "-3",
    clamp: true,
  });
  assert.equal(parseReadQuery({ clamp: "false" }).clamp, false);
});

test("a unary read's budgets are clamped to one page, not refused", () => {
  const q = parseReadQuery({ count: "18446744073709551615", bytes: "2000000" });
  // The session bounds stay as given (Subscribe counts them across the session)...
  assert.deepEqual([q.count, q.bytes], [18446744073709551615n, 2000000n]);
  // ...while one page holds at most 1000 records and 1 MiB.
  assert.deepEqual(readRequestFields(q), { count: 1000, bytes: "1048576", clamp: false });
  // 0 means no limit.
  assert.deepEqual(readRequestFields(parseReadQuery({ count: "0", bytes: "0" })), {
    count: 1000,
    bytes: "1048576",
    clamp: false,
  });
});

test("bad read queries are 400 bad_query naming the parameter", () => {
  const bad = (query: Record<string, unknown>, field: string) =>
    assertHttpError(() => parseReadQuery(query), { status: 400, code: "bad_query", field });
  bad({ seq_num: "1", tail_offset: "2" }, "seq_num|tail_offset");
  bad({ seq_num: "1", timestamp_ms: "2", tail_offset: "3" }, "seq_num|timestamp_ms|tail_offset");
  bad({ seq_num: "-1" }, "seq_num");
  bad({ seq_num: "18446744073709551616" }, "seq_num");
  bad({ seq_num: "" }, "seq_num");
  bad({ seq_num: "1.5" }, "seq_num");
  bad({ seq_num: ["1", "2"] }, "seq_num");
  bad({ timestamp_ms: "9223372036854775808" }, "timestamp_ms");
  bad({ tail_offset: "x" }, "tail_offset");
  bad({ count: "-1" }, "count");
  bad({ bytes: "1e6" }, "bytes");
  bad({ until_ms: "soon" }, "until_ms");
  bad({ clamp: "1" }, "clamp");
  bad({ clamp: "" }, "clamp");
  bad({ wait: "61" }, "wait");
  bad({ wait: "-1" }, "wait");
  bad({ int64: "bigint" }, "int64");
});
