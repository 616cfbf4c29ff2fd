import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import type { ObjectStore } from "../../platform/objstore/index.ts";
import { createMemoryStore } from "../../platform/objstore/index.ts";
import { ChunkStore } from "../storage/chunk-store.ts";
import { ChunkIndex, type ChunkMeta } from "./chunk-index.ts";
import { contiguousRun, extendFromListing } from "./chunk-listing.ts";

/** Writes chunks of `count` records from each of `firsts`; returns them by first seq_num. */
async function writeChunks(
  store: ObjectStore,
  firsts: number[],
  count = 3,
): Promise<Map<number, ChunkMeta>> {
  const chunks = new ChunkStore(store, 0);
  const out = new Map<number, ChunkMeta>();
  for (const first of firsts) {
    const records = Array.from({ length: count }, (_, i) => ({
      body: Buffer.from(`r${first + i}`),
      headers: [],
      timestampMs: BigInt(first + i),
    }));
    out.set(first, (await chunks.write("s", BigInt(first), records, 2 * count)).meta);
  }
  return out;
}

const extentOf = (index: ChunkIndex) => index.chunks.map((c) => [c.firstSeqNum, c.count]);

test("a listing takes contiguous chunks and returns the last key it took", async () => {
  const store = createMemoryStore();
  const written = await writeChunks(store, [0, 3, 6]);
  const index = new ChunkIndex();
  const last = await extendFromListing(store, "s", index);
  assert.deepEqual(extentOf(index), [
    [0n, 3],
    [3n, 3],
    [6n, 3],
  ]);
  assert.equal(last, written.get(6)?.objectKey);
});

test("a gap left by a reclaim restarts the index after it: the tail is the newest chunk's end", async () => {
  const store = createMemoryStore();
  const written = await writeChunks(store, [0, 3, 6, 9]);
  // A reclaim that deleted some chunks below the trim point and not (yet) others.
  await store.delete([written.get(3)?.objectKey as string]);
  const index = new ChunkIndex();
  await extendFromListing(store, "s", index);
  assert.deepEqual(extentOf(index), [
    [6n, 3],
    [9n, 3],
  ]);
});

test("a listing from the last key taken follows the stream across a reclaim", async () => {
  const store = createMemoryStore();
  const written = await writeChunks(store, [0, 3]);
  const index = new ChunkIndex();
  const after = await extendFromListing(store, "s", index);
  // Meanwhile the leader wrote on, trimmed to 9 and reclaimed everything below it but 9..12.
  const more = await writeChunks(store, [6, 9, 12]);
  await store.delete([0, 3].map((f) => written.get(f)?.objectKey as string));
  await store.delete([more.get(6)?.objectKey as string]);
  const last = await extendFromListing(store, "s", index, after);
  assert.deepEqual(extentOf(index), [
    [9n, 3],
    [12n, 3],
  ]);
  assert.equal(last, more.get(12)?.objectKey);
});

test("a chunk starting below the index's end is passed over", async () => {
  const store = createMemoryStore();
  await writeChunks(store, [0, 3]);
  // An ambiguous write that landed twice with different extents.
  await writeChunks(store, [3], 2);
  const index = new ChunkIndex();
  await extendFromListing(store, "s", index);
  assert.equal(index.last()?.firstSeqNum, 3n);
  assert.equal(index.length, 2);
});

test("a lost member's late chunk beside its successor's does not hide the successor's run", async () => {
  const store = createMemoryStore();
  // The successor settled 0..5 and 5..9; the lost member's chunk of 0..2 landed late, and its
  // key sorts first ("-2-" before "-5-").
  const successor = await writeChunks(store, [0], 5);
  await writeChunks(store, [5], 4);
  await writeChunks(store, [0], 2);
  const index = new ChunkIndex();
  const last = await extendFromListing(store, "s", index);
  assert.deepEqual(extentOf(index), [
    [0n, 5],
    [5n, 4],
  ]);
  assert.ok(last && last > (successor.get(0)?.objectKey as string));
  // A follower that took the late chunk first finds the run again when the next listing does
  // not continue it.
  const follower = new ChunkIndex();
  follower.push(index.chunks[0] as ChunkMeta);
  const late = (await store.list("")).objects.map((o) => o.key).sort()[0] as string;
  follower.clear();
  follower.push({ ...(index.chunks[0] as ChunkMeta), count: 2, objectKey: late });
  await extendFromListing(store, "s", follower, late);
  assert.deepEqual(extentOf(follower), extentOf(index));
});

/** Chunk metadata alone, for the run's choice (no storage). */
const meta = (first: number, end: number): ChunkMeta => ({
  firstSeqNum: BigInt(first),
  count: end - first,
  footerLength: 0,
  contentBytes: 0,
  minTimestampMs: 0n,
  maxTimestampMs: 0n,
  objectKey: `${String(first).padStart(20, "0")}-${end - first}`,
  size: 0,
});

test("the run reaches the leader's newest chunk and starts no later than its oldest left", () => {
  fc.assert(
    fc.property(
      // The leader's chunk boundaries over 0..n, which chunks a trim reclaimed (a prefix), and
      // the late chunks of lost members: any extent of records that exist.
      fc.uniqueArray(fc.integer({ min: 1, max: 39 }), { maxLength: 8 }),
      fc.nat({ max: 8 }),
      fc.array(fc.tuple(fc.nat({ max: 39 }), fc.integer({ min: 1, max: 10 })), { maxLength: 6 }),
      (cuts, reclaimed, late) => {
        const bounds = [0, ...cuts.sort((a, b) => a - b), 40];
        const leader = bounds.slice(1).map((end, i) => meta(bounds[i] as number, end));
        const kept = leader.slice(Math.min(reclaimed, leader.length - 1));
        const others = late.map(([first, count]) => meta(first, Math.min(40, first + count)));
        const listing = [...kept, ...others].sort((a, b) =>
          a.objectKey < b.objectKey ? -1 : a.objectKey > b.objectKey ? 1 : 0,
        );
        const run = contiguousRun(listing);
        for (let i = 1; i < run.length; i++) {
          const before = run[i - 1] as ChunkMeta;
          assert.equal(before.firstSeqNum + BigInt(before.count), run[i]?.firstSeqNum);
        }
        const last = run.at(-1) as ChunkMeta;
        assert.equal(last.firstSeqNum + BigInt(last.count), 40n);
        assert.ok((run[0] as ChunkMeta).firstSeqNum <= (kept[0] as ChunkMeta).firstSeqNum);
      },
    ),
  );
});
