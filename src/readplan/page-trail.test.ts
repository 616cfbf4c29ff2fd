import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { PageTrail } from "./page-trail.ts";

test("a page follows only where the stream's last page ended", () => {
  const trail = new PageTrail(10);
  assert.equal(trail.follows("b/s", 0n), false);
  trail.ended("b/s", 1000n);
  assert.equal(trail.follows("b/s", 1000n), true);
  assert.equal(trail.follows("b/s", 999n), false);
  assert.equal(trail.follows("b/other", 1000n), false);
  trail.ended("b/s", 2000n);
  assert.equal(trail.follows("b/s", 1000n), false);
  assert.equal(trail.follows("b/s", 2000n), true);
});

test("never more streams than its bound; the least recently paged goes first", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 8 }),
      fc.array(fc.tuple(fc.integer({ min: 0, max: 15 }), fc.bigInt({ min: 0n, max: 99n }))),
      (max, pages) => {
        const trail = new PageTrail(max);
        const recent: string[] = [];
        for (const [s, next] of pages) {
          const stream = `b/${s}`;
          trail.ended(stream, next);
          const seen = recent.indexOf(stream);
          if (seen >= 0) recent.splice(seen, 1);
          recent.push(stream);
          assert.ok(trail.size <= max);
          assert.ok(trail.follows(stream, next));
        }
        for (const gone of recent.slice(0, Math.max(0, recent.length - max))) {
          assert.equal(trail.size, max);
          assert.ok(!pages.some(([s, n]) => `b/${s}` === gone && trail.follows(gone, n)));
        }
      },
    ),
  );
});
