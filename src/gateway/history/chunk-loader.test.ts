import assert from "node:assert/strict";
import { test } from "node:test";
import { Registry } from "prom-client";
import { encodeChunk } from "../../contract/codec/index.ts";
import { MemoryParts } from "../../platform/memory/index.ts";
import { createChunkLoader } from "./chunk-loader.ts";
import { createReadPlanMetrics } from "./metrics.ts";
import { type PlanEntry, planEntry } from "./plan-entry.ts";
import type { S3Fetcher } from "./s3-fetcher.ts";

const entry: PlanEntry = {
  location: { bucket: "nova", key: "chunks/s/0" },
  footerOff: 100,
  footerLen: 28,
  payloadBytes: 100,
  firstSeqNum: 0n,
  minTimestampMs: 0n,
  cacheKey: "s3://nova/chunks/s/0",
};

test("a raw S3 load every reader left is abandoned: its GET is aborted, and the next load asks anew", async () => {
  const gets: AbortSignal[] = [];
  const s3: S3Fetcher = {
    // A store gone silent: the GET ends only when its signal aborts.
    get: (_bucket, _key, _size, signal) =>
      new Promise((_, reject) => {
        assert.ok(signal, "the load's signal reaches the GET");
        gets.push(signal);
        signal.addEventListener("abort", () => reject(signal.reason), { once: true });
      }),
    close: () => {},
  };
  const loader = createChunkLoader({
    url: { get: () => Promise.reject(new Error("no URLs")), close: async () => {} },
    s3,
    cacheBytes: 1 << 20,
    loadingBytes: 1 << 20,
    metrics: createReadPlanMetrics(new Registry(), new MemoryParts()),
  });
  for (let i = 1; i <= 2; i++) {
    const reader = new AbortController();
    const load = loader.load(entry, reader.signal);
    load.catch(() => {});
    reader.abort(new Error("the reader went away"));
    await assert.rejects(load);
    assert.equal(gets.length, i);
    assert.equal(gets[i - 1]?.aborted, true, "no GET runs on for a reader that left");
  }
  await loader.close();
});

test("fetches past --readplan-loading-mb are refused as busy, and the budget comes back as they end", async () => {
  const pending: (() => void)[] = [];
  const s3: S3Fetcher = {
    // Each GET waits for the test, then fails: the load's memory is given back.
    get: () => new Promise((_, reject) => pending.push(() => reject(new Error("gone")))),
    close: () => {},
  };
  const memory = new MemoryParts();
  const metrics = createReadPlanMetrics(new Registry(), memory);
  const size = entry.footerOff + entry.footerLen;
  const loader = createChunkLoader({
    url: { get: () => Promise.reject(new Error("no URLs")), close: async () => {} },
    s3,
    cacheBytes: 1 << 20,
    loadingBytes: 2 * size,
    metrics,
  });
  const loading = () => memory.snapshot().find((p) => p.name === "readplan_loading");
  const other = (n: number) => ({ ...entry, cacheKey: `s3://nova/chunks/s/${n}` });
  const signal = new AbortController().signal;
  const first = [loader.load(other(1), signal), loader.load(other(2), signal)];
  for (const l of first) l.catch(() => {});
  assert.deepEqual(loading(), { name: "readplan_loading", held: 2 * size, bound: 2 * size });
  await assert.rejects(loader.load(other(3), signal), (err: Error & { reason?: string }) => {
    assert.equal(err.reason, "busy");
    assert.match(err.message, /--readplan-loading-mb/);
    return true;
  });
  assert.equal(pending.length, 2, "the refused load fetched nothing");
  pending.shift()?.();
  await assert.rejects(first[0] as Promise<unknown>);
  assert.equal(loading()?.held, size);
  const third = loader.load(other(3), signal);
  third.catch(() => {});
  assert.equal(pending.length, 2, "a fetch fits again");
  for (const release of pending.splice(0)) release();
  await Promise.allSettled([...first, third]);
  assert.equal(loading()?.held, 0);
  await loader.close();
});

test("with nothing being fetched, a chunk larger than --readplan-loading-mb is fetched all the same", async () => {
  let gets = 0;
  const s3: S3Fetcher = {
    get: () => {
      gets++;
      return Promise.reject(new Error("gone"));
    },
    close: () => {},
  };
  const loader = createChunkLoader({
    url: { get: () => Promise.reject(new Error("no URLs")), close: async () => {} },
    s3,
    cacheBytes: 1 << 20,
    loadingBytes: 1,
    metrics: createReadPlanMetrics(new Registry(), new MemoryParts()),
  });
  await assert.rejects(loader.load(entry, new AbortController().signal), /gone/);
  assert.equal(gets, 1, "fetched, not refused as busy");
  await loader.close();
});

test("a chunk the cache lets go lets go of its memory, though a reader still holds it", async () => {
  // Two chunks of 40 KiB, a cache for one: a reader's read-ahead that holds the first must not
  // keep its bytes alive once the cache let it go (memory over 16 MiB is no pool's, and only
  // the chunk itself would keep it).
  const objects = new Map<string, Buffer>();
  const entries = ["a", "b"].map((key) => {
    const c = encodeChunk(0n, [
      { body: Buffer.alloc(40 * 1024, key), headers: [], timestampMs: 1n },
    ]);
    objects.set(key, c.bytes);
    return planEntry({
      object: { storage_bucket: "nova", object_key: key },
      location: "object",
      footer_off: String(c.footerOffset),
      footer_len: c.footerLength,
      payload_bytes: String(c.payloadBytes),
      first_seq_num: "0",
      min_timestamp_ms: "1",
      max_timestamp_ms: "1",
    });
  });
  const loader = createChunkLoader({
    url: { get: () => Promise.reject(new Error("no URLs")), close: async () => {} },
    s3: { get: async (_b, key) => objects.get(key) as Buffer, close: () => {} },
    cacheBytes: 64 * 1024,
    loadingBytes: 1 << 20,
    metrics: createReadPlanMetrics(new Registry(), new MemoryParts()),
  });
  const signal = new AbortController().signal;
  const held = await loader.load(entries[0] as PlanEntry, signal);
  assert.ok(held.bytesHeld > 40 * 1024);
  assert.ok(held.copyRecords(0, 1));
  await loader.load(entries[1] as PlanEntry, signal);
  assert.equal(held.bytesHeld, 0, "the evicted chunk holds no memory");
  assert.equal(held.copyRecords(0, 1), undefined, "its reader loads it again");
  await loader.close();
});
