import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import type { ChunkMeta } from "./chunk-index.ts";
import { planChunks } from "./plan-chunks.ts";

function chunksOf(first: bigint, counts: number[]): ChunkMeta[] {
  let next = first;
  return counts.map((count) => {
    const c: ChunkMeta = {
      objectKey: `c${next}`,
      size: 100,
      firstSeqNum: next,
      count,
      footerLength: 10,
      contentBytes: 50,
      minTimestampMs: next,
      maxTimestampMs: next,
    };
    next += BigInt(count);
    return c;
  });
}

const firstSeqs = (chunks: ChunkMeta[]) => chunks.map((c) => c.firstSeqNum);

test("from the chunk holding the start, up to the limit", () => {
  const chunks = chunksOf(0n, [3, 3, 3, 3]); // 0 3 6 9, tail 12
  assert.deepEqual(firstSeqs(planChunks(chunks, 0n, 0n, 10).chunks), [0n, 3n, 6n, 9n]);
  assert.deepEqual(firstSeqs(planChunks(chunks, 4n, 0n, 10).chunks), [3n, 6n, 9n]);
  assert.deepEqual(planChunks(chunks, 4n, 0n, 2), {
    chunks: chunks.slice(1, 3),
    more: true,
  });
  assert.equal(planChunks(chunks, 4n, 0n, 3).more, false);
  assert.deepEqual(planChunks(chunks, 12n, 0n, 10), { chunks: [], more: false });
});

test("a chunk holding a record below the trim point is never vended", () => {
  const chunks = chunksOf(0n, [3, 3, 3, 3]);
  // Trim at 4: the chunk [3, 6) holds 3; the plan starts at 6 whatever the start.
  for (const start of [0n, 3n, 4n, 5n, 6n]) {
    assert.deepEqual(firstSeqs(planChunks(chunks, start, 4n, 10).chunks), [6n, 9n], `${start}`);
  }
  // Trim on a boundary: that chunk is whole.
  assert.deepEqual(firstSeqs(planChunks(chunks, 0n, 6n, 10).chunks), [6n, 9n]);
  // Trim at the tail: nothing to vend.
  assert.deepEqual(planChunks(chunks, 0n, 12n, 10), { chunks: [], more: false });
});

test("properties: contiguous, bounded, untrimmed; a gap before the first entry is one trimmed chunk", () => {
  const end = (c: ChunkMeta) => c.firstSeqNum + BigInt(c.count);
  fc.assert(
    fc.property(
      fc.bigInt({ min: 0n, max: 50n }),
      fc.array(fc.integer({ min: 1, max: 5 }), { maxLength: 20 }),
      fc.bigInt({ min: 0n, max: 150n }),
      fc.bigInt({ min: 0n, max: 150n }),
      fc.integer({ min: 1, max: 25 }),
      (first, counts, startAt, trimAt, limit) => {
        const chunks = chunksOf(first, counts);
        const tail = first + BigInt(counts.reduce((a, b) => a + b, 0));
        // Chunks are reclaimed only below the trim point, so it is at or past the first one.
        const trim = trimAt < first ? first : trimAt > tail ? tail : trimAt;
        const start = startAt > tail ? tail : startAt;
        const { chunks: plan, more } = planChunks(chunks, start, trim, limit);

        assert.ok(plan.length <= limit);
        plan.forEach((c, i) => {
          assert.ok(c.firstSeqNum >= trim, "no chunk holds a trimmed record");
          assert.ok(end(c) > start, "no chunk lies wholly before the start");
          if (i > 0) assert.equal(c.firstSeqNum, end(plan[i - 1] as ChunkMeta), "contiguous");
        });
        const last = plan.at(-1);
        assert.equal(more, last !== undefined && end(last) < tail);

        const from = start > trim ? start : trim;
        const holder = chunks.find((c) => c.firstSeqNum <= from && from < end(c));
        const lead = plan[0];
        if (holder === undefined) {
          assert.equal(lead, undefined, "nothing to read from the start");
        } else if (holder.firstSeqNum >= trim) {
          assert.equal(lead, holder, "the first entry holds the first readable record");
        } else {
          // The holder straddles the trim point: the plan starts right after it.
          assert.equal(lead, chunks[chunks.indexOf(holder) + 1]);
        }
      },
    ),
  );
});
