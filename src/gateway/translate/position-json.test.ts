import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { positionToJson, tailToJson } from "./position-json.ts";

test("positions are exact in both int64 modes; unset reads as zero", () => {
  fc.assert(
    fc.property(
      fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
      fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
      (seq, ts) => {
        const p = { seq_num: String(seq), timestamp_ms: String(ts) };
        assert.deepEqual(positionToJson(p, "number"), { seq_num: seq, timestamp_ms: ts });
        assert.deepEqual(tailToJson({ tail: p }, "string"), { tail: p });
      },
    ),
  );
  assert.deepEqual(positionToJson(null, "string"), { seq_num: "0", timestamp_ms: "0" });
});
