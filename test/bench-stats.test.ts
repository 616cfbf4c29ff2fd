// The benches' quantile (bench/stats.ts): every bench's p50 and p99 rest on it.
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { quantile } from "../bench/stats.ts";

const sortedSamples = fc
  .array(fc.double({ noNaN: true }), { minLength: 1, maxLength: 200 })
  .map((xs) => xs.sort((a, b) => a - b));
const q = fc.double({ min: 0, max: 1, noNaN: true });

test("a quantile is one of the samples, between the smallest and the largest", () => {
  fc.assert(
    fc.property(sortedSamples, q, (sorted, q) => {
      const value = quantile(sorted, q);
      assert.ok(sorted.includes(value));
      assert.ok((sorted[0] as number) <= value && value <= (sorted.at(-1) as number));
    }),
  );
});

test("a larger q never gives a smaller quantile", () => {
  fc.assert(
    fc.property(sortedSamples, q, q, (sorted, a, b) => {
      const [low, high] = a <= b ? [a, b] : [b, a];
      assert.ok(quantile(sorted, low) <= quantile(sorted, high));
    }),
  );
});

test("below 1, the smallest sample with more than q·n of the n at or below it", () => {
  fc.assert(
    fc.property(sortedSamples, q, (sorted, q) => {
      fc.pre(q < 1);
      const value = quantile(sorted, q);
      const n = sorted.length;
      assert.ok(sorted.filter((x) => x <= value).length > q * n);
      assert.ok(sorted.filter((x) => x < value).length <= q * n);
    }),
  );
});

test("known small arrays", () => {
  assert.ok(Number.isNaN(quantile([], 0.5)));
  assert.equal(quantile([7], 0), 7);
  assert.equal(quantile([7], 0.99), 7);
  assert.equal(quantile([7], 1), 7);
  // Of two middle values the median is the upper one.
  assert.equal(quantile([1, 2, 3, 4], 0.5), 3);
  assert.equal(quantile([1, 2, 3], 0.5), 2);
  assert.equal(quantile([1, 2, 3, 4], 0), 1);
  assert.equal(quantile([1, 2, 3, 4], 0.25), 2);
  assert.equal(quantile([1, 2, 3, 4], 1), 4);
  const hundred = Float64Array.from({ length: 100 }, (_, i) => i + 1);
  assert.equal(quantile(hundred, 0.5), 51);
  assert.equal(quantile(hundred, 0.99), 100);
  assert.equal(quantile(hundred, 0.989), 99);
});
