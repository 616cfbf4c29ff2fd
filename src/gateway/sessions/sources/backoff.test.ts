import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { backoffDelayMs, DEFAULT_BACKOFF, jitter } from "./backoff.ts";

test("delays lie in the upper half of a ceiling that doubles up to the cap", () => {
  fc.assert(
    fc.property(
      fc.nat(100),
      fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
      (attempt, r) => {
        const ceiling = Math.min(DEFAULT_BACKOFF.maxMs, DEFAULT_BACKOFF.baseMs * 2 ** attempt);
        const d = backoffDelayMs(attempt, DEFAULT_BACKOFF, () => r);
        assert.ok(d >= ceiling / 2 && d <= ceiling, `${d} for attempt ${attempt}`);
      },
    ),
  );
  assert.equal(
    backoffDelayMs(0, { baseMs: 100, maxMs: 1000 }, () => 0),
    50,
  );
  assert.equal(
    backoffDelayMs(50, { baseMs: 100, maxMs: 1000 }, () => 0),
    500,
  );
});

test("jitter stays in its range", () => {
  fc.assert(
    fc.property(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (r) => {
      const v = jitter(5000, 15000, () => r);
      assert.ok(v >= 5000 && v <= 15000);
    }),
  );
});
