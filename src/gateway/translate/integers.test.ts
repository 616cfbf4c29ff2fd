import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { assertHttpError } from "../errors/assert-http-error.test-helper.ts";
import { badQuery, invalidArgument } from "../errors/index.ts";
import {
  INT64,
  parseInt64Mode,
  readExactInt,
  readUint32,
  UINT32,
  UINT64,
  writeExactInt,
} from "./integers.ts";

const inRange = (r: { min: bigint; max: bigint }) => fc.bigInt({ min: r.min, max: r.max });

test("decimal strings and safe numbers read back exactly, and write out as given", () => {
  for (const range of [UINT64, INT64, UINT32]) {
    fc.assert(
      fc.property(inRange(range), (n) => {
        assert.equal(readExactInt(n.toString(), range, "f", invalidArgument), n);
        if (n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER)) {
          assert.equal(readExactInt(Number(n), range, "f", invalidArgument), n);
        }
        assert.equal(writeExactInt(n.toString(), "number"), n);
        assert.equal(writeExactInt(n, "string"), n.toString());
      }),
    );
  }
});

test("leading zeros within 20 digits are read; -0 is 0", () => {
  assert.equal(readExactInt("007", UINT64, "f", invalidArgument), 7n);
  assert.equal(readExactInt("-0", UINT64, "f", invalidArgument), 0n);
});

test("out of range is refused, naming the field and the range", () => {
  const cases: [unknown, typeof UINT64][] = [
    ["18446744073709551616", UINT64],
    [-1, UINT64],
    ["-1", UINT64],
    ["9223372036854775808", INT64],
    ["-9223372036854775809", INT64],
    [4294967296, UINT32],
  ];
  for (const [value, range] of cases) {
    const e = assertHttpError(() => readExactInt(value, range, "match_seq_num", invalidArgument), {
      status: 400,
      code: "invalid_argument",
      field: "match_seq_num",
    });
    assert.ok(e.message.includes(`from ${range.min} to ${range.max}`), e.message);
  }
  fc.assert(
    fc.property(fc.bigInt({ min: UINT64.max + 1n, max: 10n ** 20n - 1n }), (n) => {
      assertHttpError(() => readExactInt(n.toString(), UINT64, "seq_num", badQuery), {
        status: 400,
        code: "bad_query",
        field: "seq_num",
      });
    }),
  );
});

test("what is not an exact integer is refused, naming the field", () => {
  for (const value of [
    1.5,
    1e300,
    2 ** 60,
    Number.NaN,
    "1.0",
    "1e3",
    " 1",
    "+1",
    "",
    "0x10",
    "1".repeat(21),
    null,
    true,
    [1],
    {},
  ]) {
    assertHttpError(() => readExactInt(value, INT64, "records[0].timestamp_ms", invalidArgument), {
      status: 400,
      code: "invalid_argument",
      field: "records[0].timestamp_ms",
    });
  }
  const e = assertHttpError(() => readExactInt(2 ** 60, UINT64, "n", invalidArgument), {
    status: 400,
    code: "invalid_argument",
    field: "n",
  });
  assert.match(e.message, /plain digits/);
});

test("readUint32 gives a number", () => {
  assert.equal(readUint32(4294967295, "batch_max_records", invalidArgument), 4294967295);
  assertHttpError(() => readUint32(-1, "batch_max_records", invalidArgument), {
    status: 400,
    code: "invalid_argument",
    field: "batch_max_records",
  });
});

test("the int64 query parameter", () => {
  assert.equal(parseInt64Mode({}), "number");
  assert.equal(parseInt64Mode({ int64: "number" }), "number");
  assert.equal(parseInt64Mode({ int64: "string" }), "string");
  for (const int64 of ["String", "", "bigint", ["string", "string"]]) {
    assertHttpError(() => parseInt64Mode({ int64 }), {
      status: 400,
      code: "bad_query",
      field: "int64",
    });
  }
});
