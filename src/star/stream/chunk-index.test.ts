import assert from "node:assert/strict";
import { test } from "node:test";
import { ChunkIndex, type ChunkMeta } from "./chunk-index.ts";

function meta(first: bigint, count: number, minTs: bigint, maxTs: bigint): ChunkMeta {
  return {
    objectKey: `k${first}`,
    size: 10,
    firstSeqNum: first,
    count,
    footerLength: 1,
    contentBytes: 1,
    minTimestampMs: minTs,
    maxTimestampMs: maxTs,
  };
}

function sample(): ChunkIndex {
  const index = new ChunkIndex();
  index.push(meta(0n, 3, 10n, 10n));
  index.push(meta(3n, 2, 20n, 25n));
  index.push(meta(5n, 5, 25n, 40n));
  return index;
}

test("finds the chunk holding a seq_num", () => {
  const index = sample();
  assert.deepEqual(
    [0n, 2n, 3n, 4n, 5n, 9n, 10n].map((s) => index.findBySeq(s)),
    [0, 0, 1, 1, 2, 2, -1],
  );
});

test("finds the first chunk reaching a timestamp", () => {
  const index = sample();
  assert.deepEqual(
    [0n, 10n, 11n, 25n, 26n, 40n, 41n].map((t) => index.findByTimestamp(t)),
    [0, 0, 1, 1, 2, 2, -1],
  );
});

test("refuses a chunk that leaves a gap or overlaps", () => {
  const index = sample();
  assert.throws(() => index.push(meta(11n, 1, 40n, 40n)), /expected 10/);
  assert.throws(() => index.push(meta(9n, 1, 40n, 40n)), /expected 10/);
});

test("drops only chunks wholly below a seq_num", () => {
  const index = sample();
  assert.deepEqual(
    index.dropBelow(4n).map((c) => c.firstSeqNum),
    [0n],
  );
  assert.deepEqual(
    index.dropBelow(5n).map((c) => c.firstSeqNum),
    [3n],
  );
  assert.equal(index.length, 1);
});
