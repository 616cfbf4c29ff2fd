import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { CURSOR_EPOCH_MS, CURSOR_INTERVAL_MS, nextCursor } from "./cursor.ts";

test("the cursor is the interval number since the protocol's epoch", () => {
  assert.equal(nextCursor(CURSOR_EPOCH_MS, undefined), "0");
  assert.equal(nextCursor(CURSOR_EPOCH_MS + CURSOR_INTERVAL_MS * 7 + 5, undefined), "7");
  assert.equal(nextCursor(CURSOR_EPOCH_MS + CURSOR_INTERVAL_MS * 7, "6"), "7", "an older echo");
  assert.equal(nextCursor(CURSOR_EPOCH_MS, "junk"), "0", "an unreadable echo is ignored");
});

test("an echo at or past the current interval gets a strictly greater cursor", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 1e7 }),
      fc.integer({ min: 0, max: 1e6 }),
      fc.double({ min: 0, max: 0.999999, noNaN: true }),
      (interval, ahead, r) => {
        const now = CURSOR_EPOCH_MS + interval * CURSOR_INTERVAL_MS;
        const echoed = BigInt(interval + ahead);
        const next = BigInt(nextCursor(now, echoed.toString(), () => r));
        assert.ok(next > echoed);
        assert.ok(next <= echoed + 180n, "at most 3600 s of jitter");
      },
    ),
  );
});
