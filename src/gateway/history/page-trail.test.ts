import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { PageTrail } from "./page-trail.ts";

test("a page follows only where the stream's last page ended", () => {
  const trail = new PageTrail(10);
  const s = { bucket: "b", key: "s" };
  assert.equal(trail.follows(s, 0n), false);
  trail.ended(s, 1000n);
  assert.equal(trail.follows(s, 1000n), true);
  assert.equal(trail.follows(s, 999n), false);
  assert.equal(trail.follows({ bucket: "b", key: "other" }, 1000n), false);
  trail.ended(s, 2000n);
  assert.equal(trail.follows(s, 1000n), false);
  assert.equal(trail.follows(s, 2000n), true);
});

test("never more streams than its bound; the least recently paged goes first", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 8 }),
      fc.array(fc.tuple(fc.integer({ min: 0, max: 15 }), fc.bigInt({ min: 0n, max: 99n }))),
      (max, pages) => {
        const trail = new PageTrail(max);
        const recent: string[] = [];
        const address = (s: string) => ({ bucket: "b", key: s });
        for (const [n, next] of pages) {
          const stream = String(n);
          trail.ended(address(stream), next);
          const seen = recent.indexOf(stream);
          if (seen >= 0) recent.splice(seen, 1);
          recent.push(stream);
          assert.ok(trail.size <= max);
          assert.ok(trail.follows(address(stream), next));
        }
        for (const gone of recent.slice(0, Math.max(0, recent.length - max))) {
          assert.equal(trail.size, max);
          assert.ok(!pages.some(([s, n]) => String(s) === gone && trail.follows(address(gone), n)));
        }
      },
    ),
  );
});
