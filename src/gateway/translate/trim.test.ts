import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { assertHttpError } from "../errors/assert-http-error.test-helper.ts";
import { parseJsonExact, stringifyJsonExact } from "./json-exact.ts";
import { trimBodyFromJson } from "./trim.ts";

test("a trim point is exactly one of seq_num or timestamp_ms, exact", () => {
  fc.assert(
    fc.property(
      fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
      fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
      (seq, ts) => {
        assert.deepEqual(trimBodyFromJson(parseJsonExact(stringifyJsonExact({ seq_num: seq }))), {
          seq_num: String(seq),
        });
        assert.deepEqual(
          trimBodyFromJson(parseJsonExact(stringifyJsonExact({ timestamp_ms: ts }))),
          { timestamp_ms: String(ts) },
        );
      },
    ),
  );
});

test("bad trim bodies are 400 invalid_argument naming the field", () => {
  for (const [body, field] of [
    [{}, "seq_num|timestamp_ms"],
    [{ seq_num: 1, timestamp_ms: 2 }, "seq_num|timestamp_ms"],
    [{ seq_num: -1 }, "seq_num"],
    [{ seq_num: null }, "seq_num"],
    [{ timestamp_ms: "x" }, "timestamp_ms"],
    [{ seq_num: 1, extra: 1 }, "extra"],
    ["1", "body"],
  ] as const) {
    assertHttpError(() => trimBodyFromJson(body), { status: 400, code: "invalid_argument", field });
  }
});
