import assert from "node:assert/strict";
import { test } from "node:test";
import type { ObjectStore } from "../../platform/objstore/index.ts";
import { createMemoryStore } from "../../platform/objstore/index.ts";
import { ChunkStore } from "../storage/chunk-store.ts";
import { ChunkIndex, type ChunkMeta } from "./chunk-index.ts";
import { extendFromListing } from "./chunk-listing.ts";

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
