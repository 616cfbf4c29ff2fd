import assert from "node:assert/strict";
import { test } from "node:test";
import { status } from "@grpc/grpc-js";
import { createMemoryStore, type ObjectStore } from "../../platform/objstore/index.ts";
import type { StarError } from "../errors.ts";
import type { ChunkMeta } from "../stream/chunk-index.ts";
import { ChunkStore } from "./chunk-store.ts";

/** A chunk store over memory that records every object it gets from storage. */
function counting(cacheBytes = 1 << 20): { chunks: ChunkStore; gets: string[] } {
  const store = createMemoryStore();
  const gets: string[] = [];
  const watched: ObjectStore = {
    ...store,
    get: (key, ...rest) => {
      gets.push(key);
      return store.get(key, ...rest);
    },
  };
  return { chunks: new ChunkStore(watched, cacheBytes), gets };
}

async function write(chunks: ChunkStore, streamId: string, first: number): Promise<ChunkMeta> {
  const records = [0, 1].map((i) => ({
    body: Buffer.from(`${streamId}${first + i}`),
    headers: [],
    timestampMs: BigInt(first + i),
  }));
  return (await chunks.write(streamId, BigInt(first), records, 4)).meta;
}

const bodies = async (chunks: ChunkStore, meta: ChunkMeta) =>
  (await chunks.records(meta)).map((r) => r.body.toString());

test("a stream's newest chunk is read from memory as written", async () => {
  const { chunks, gets } = counting();
  const a = await write(chunks, "s", 0);
  assert.deepEqual(await bodies(chunks, a), ["s0", "s1"]);
  assert.deepEqual(gets, []);
});

test("a chunk nobody read leaves memory when its stream writes the next", async () => {
  const { chunks, gets } = counting();
  const a = await write(chunks, "s", 0);
  const held = chunks.cacheBytes;
  const b = await write(chunks, "s", 2);
  assert.equal(chunks.cacheBytes, held, "one chunk held, the newest");
  assert.deepEqual(await bodies(chunks, b), ["s2", "s3"]);
  assert.deepEqual(gets, []);
  assert.deepEqual(await bodies(chunks, a), ["s0", "s1"]);
  assert.deepEqual(gets, [a.objectKey], "the older one comes from storage");
  // Read once, it stays.
  await write(chunks, "s", 4);
  await bodies(chunks, a);
  assert.deepEqual(gets, [a.objectKey]);
});

test("a chunk read while it was the newest stays after the next write", async () => {
  const { chunks, gets } = counting();
  const a = await write(chunks, "s", 0);
  await bodies(chunks, a);
  await write(chunks, "s", 2);
  await write(chunks, "s", 4);
  assert.deepEqual(await bodies(chunks, a), ["s0", "s1"]);
  assert.deepEqual(gets, []);
});

test("each stream keeps its own newest chunk", async () => {
  const { chunks, gets } = counting();
  const s = await write(chunks, "s", 0);
  const t = await write(chunks, "t", 0);
  assert.deepEqual(await bodies(chunks, s), ["s0", "s1"]);
  assert.deepEqual(await bodies(chunks, t), ["t0", "t1"]);
  assert.deepEqual(gets, []);
});

test("a forgotten stream's newest chunk leaves memory; others stay", async () => {
  const { chunks, gets } = counting();
  const s = await write(chunks, "s", 0);
  const t = await write(chunks, "t", 0);
  const both = chunks.cacheBytes;
  chunks.forget("s");
  chunks.forget("never-written");
  assert.ok(chunks.cacheBytes < both && chunks.cacheBytes > 0);
  await bodies(chunks, t);
  assert.deepEqual(gets, []);
  await bodies(chunks, s);
  assert.deepEqual(gets, [s.objectKey]);
});

test("deleted chunks leave memory, and a later write keeps only itself", async () => {
  const { chunks } = counting();
  const a = await write(chunks, "s", 0);
  await chunks.delete([a]);
  assert.equal(chunks.cacheBytes, 0);
  await write(chunks, "s", 2);
  const one = chunks.cacheBytes;
  await write(chunks, "s", 4);
  assert.equal(chunks.cacheBytes, one);
});

test("a newest chunk the cache let go of, once read back, stays after the next write", async () => {
  const probe = counting();
  await write(probe.chunks, "p", 0);
  // Room for two chunks: the third write evicts the first.
  const { chunks, gets } = counting(2 * probe.chunks.cacheBytes);
  const s = await write(chunks, "s", 0);
  await write(chunks, "t", 0);
  await write(chunks, "u", 0);
  await bodies(chunks, s);
  assert.deepEqual(gets, [s.objectKey], "evicted, so read from storage");
  // Read, it is kept like any chunk read: the next write evicts the least recent (u's).
  await write(chunks, "s", 2);
  await bodies(chunks, s);
  assert.deepEqual(gets, [s.objectKey]);
});

test("a chunk holding other seq_nums than its name says is refused as damaged", async () => {
  const store = createMemoryStore();
  const writer = new ChunkStore(store, 0);
  const elsewhere = await write(writer, "s", 100);
  const named = await write(writer, "s", 0);
  // The object named for records 0..1 holds 100..101.
  await store.put(named.objectKey, (await store.get(elsewhere.objectKey)) as Uint8Array);
  const reader = new ChunkStore(store, 1 << 20);
  await assert.rejects(
    reader.records(named),
    (err: StarError) =>
      err.code === status.UNAVAILABLE &&
      /is damaged: it holds records \[100, 102\), not \[0, 2\)/.test(err.message),
  );
});

test("a chunk that does not decode is UNAVAILABLE naming it, not an internal error", async () => {
  const store = createMemoryStore();
  const meta = await write(new ChunkStore(store, 0), "s", 0);
  const bytes = Buffer.from((await store.get(meta.objectKey)) as Uint8Array);
  bytes.writeUInt8((bytes.at(-1) ?? 0) ^ 0xff, bytes.length - 1);
  await store.put(meta.objectKey, bytes);
  await assert.rejects(
    new ChunkStore(store, 1 << 20).records(meta),
    (err: StarError) =>
      err.code === status.UNAVAILABLE && err.message.includes(`chunk ${meta.objectKey} is damaged`),
  );
});
