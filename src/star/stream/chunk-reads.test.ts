import assert from "node:assert/strict";
import { test } from "node:test";
import { createMemoryStore } from "../../platform/objstore/index.ts";
import { ChunkStore } from "../storage/chunk-store.ts";
import { ChunkIndex } from "./chunk-index.ts";
import { readPage, seqForTimestamp } from "./chunk-reads.ts";

/** Chunks of three records each, from seq_num 0, record i stamped 10 * i. */
async function threeChunks(): Promise<{ chunks: ChunkStore; index: ChunkIndex }> {
  const chunks = new ChunkStore(createMemoryStore(), 1 << 20);
  const index = new ChunkIndex();
  for (let first = 0; first < 9; first += 3) {
    const records = [0, 1, 2].map((i) => ({
      body: Buffer.from(`r${first + i}`),
      headers: [],
      timestampMs: BigInt(10 * (first + i)),
    }));
    const { meta } = await chunks.write("s", BigInt(first), records, 6);
    index.push(meta);
  }
  return { chunks, index };
}

/** A ChunkStore whose first load runs `meanwhile` before answering, as a concurrent reclaim would. */
function spliceDuringFirstLoad(chunks: ChunkStore, meanwhile: () => void): ChunkStore {
  let first = true;
  return {
    records: async (meta: Parameters<ChunkStore["records"]>[0]) => {
      const records = await chunks.records(meta);
      if (first) {
        first = false;
        meanwhile();
      }
      return records;
    },
  } as ChunkStore;
}

/** `chunks`, noting the first seq_num of each chunk it loads. */
function countingLoads(chunks: ChunkStore): { counting: ChunkStore; loaded: bigint[] } {
  const loaded: bigint[] = [];
  const counting = {
    records: (meta: Parameters<ChunkStore["records"]>[0]) => {
      loaded.push(meta.firstSeqNum);
      return chunks.records(meta);
    },
  } as ChunkStore;
  return { counting, loaded };
}

const seqs = (records: { seqNum: bigint }[]) => records.map((r) => r.seqNum);
const wide = { maxRecords: 100, maxBytes: 1 << 20 };

test("readPage reads on in seq_num order when the index loses its head while a chunk loads", async () => {
  const { chunks, index } = await threeChunks();
  // A trim to 3 and its reclaim land while the first chunk is loading.
  const racing = spliceDuringFirstLoad(chunks, () => index.dropBelow(3n));
  const page = await readPage(racing, { index, trim: 0n, tail: 9n, unsettled: [] }, 0n, wide);
  assert.deepEqual(seqs(page), [0n, 1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n]);
});

test("readPage stops where the index ends when it is cleared while a chunk loads", async () => {
  const { chunks, index } = await threeChunks();
  const racing = spliceDuringFirstLoad(chunks, () => index.clear());
  const page = await readPage(racing, { index, trim: 0n, tail: 9n, unsettled: [] }, 1n, wide);
  assert.deepEqual(seqs(page), [1n, 2n]);
});

test("readPage does not load the next chunk once the page is full", async () => {
  const { chunks, index } = await threeChunks();
  const { counting, loaded } = countingLoads(chunks);
  const page = await readPage(counting, { index, trim: 0n, tail: 9n, unsettled: [] }, 0n, {
    maxRecords: 3,
    maxBytes: 1 << 20,
  });
  assert.deepEqual(seqs(page), [0n, 1n, 2n]);
  assert.deepEqual(loaded, [0n]);
});

test("seqForTimestamp finds the first record at or after a stamp, above the trim point", async () => {
  const { chunks, index } = await threeChunks();
  const extent = { index, trim: 0n, tail: 9n, unsettled: [] };
  assert.equal(await seqForTimestamp(chunks, extent, 0n), 0n);
  assert.equal(await seqForTimestamp(chunks, extent, 41n), 5n);
  assert.equal(await seqForTimestamp(chunks, extent, 81n), 9n);
  assert.equal(await seqForTimestamp(chunks, { ...extent, trim: 4n }, 0n), 4n);
});

/** Records 9..11 acked but not settled, stamped as the chunks' are. */
const unsettled = [9, 10, 11].map((i) => ({
  seqNum: BigInt(i),
  timestampMs: BigInt(10 * i),
  headers: [],
  body: Buffer.from(`r${i}`),
}));

test("seqForTimestamp loads no chunk wholly below the trim point, though not yet reclaimed", async () => {
  const { chunks, index } = await threeChunks();
  const { counting, loaded } = countingLoads(chunks);
  // Trimmed to the tail: every chunk is below it; the answer is in the unsettled records.
  const extent = { index, trim: 9n, tail: 12n, unsettled };
  assert.equal(await seqForTimestamp(counting, extent, 0n), 9n);
  assert.deepEqual(loaded, []);
  // Trimmed into the second chunk: the first is never loaded.
  assert.equal(await seqForTimestamp(counting, { ...extent, trim: 4n }, 0n), 4n);
  assert.deepEqual(loaded, [3n]);
});

test("readPage reads on from the chunks into the unsettled records, each record once", async () => {
  const { chunks, index } = await threeChunks();
  const extent = { index, trim: 0n, tail: 12n, unsettled };
  assert.deepEqual(seqs(await readPage(chunks, extent, 7n, wide)), [7n, 8n, 9n, 10n, 11n]);
  assert.deepEqual(seqs(await readPage(chunks, extent, 10n, wide)), [10n, 11n]);
  assert.deepEqual(seqs(await readPage(chunks, extent, 12n, wide)), []);
  const cut = { maxRecords: 3, maxBytes: 1 << 20 };
  assert.deepEqual(seqs(await readPage(chunks, extent, 8n, cut)), [8n, 9n, 10n]);
  const untilMs = { ...wide, untilMs: 100n };
  assert.deepEqual(seqs(await readPage(chunks, extent, 8n, untilMs)), [8n, 9n]);
});

test("readPage of a stream with nothing settled, and a trim point inside the unsettled part", async () => {
  const chunks = new ChunkStore(createMemoryStore(), 1 << 20);
  const extent = { index: new ChunkIndex(), trim: 10n, tail: 12n, unsettled };
  assert.deepEqual(seqs(await readPage(chunks, extent, 0n, wide)), [10n, 11n]);
  assert.equal(await seqForTimestamp(chunks, extent, 0n), 10n);
});

test("seqForTimestamp searches the unsettled records when no chunk reaches the stamp", async () => {
  const { chunks, index } = await threeChunks();
  const extent = { index, trim: 0n, tail: 12n, unsettled };
  assert.equal(await seqForTimestamp(chunks, extent, 95n), 10n);
  assert.equal(await seqForTimestamp(chunks, extent, 111n), 12n);
});
