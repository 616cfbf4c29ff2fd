// One chunk of a plan, verified: from the cache, from a load already in flight, or fetched
// (presigned URL or raw S3 object) and checked. Counts fetches, bytes and cache hits.
import { ChunkCache } from "./chunk-cache.ts";
import { ChunkMemoryPool } from "./chunk-memory.ts";
import { ChunkFault } from "./faults.ts";
import type { ReadPlanMetrics } from "./metrics.ts";
import type { PlanEntry } from "./plan-entry.ts";
import type { S3Fetcher } from "./s3-fetcher.ts";
import type { UrlFetcher } from "./url-fetcher.ts";
import { type VerifiedChunk, verifyChunk } from "./verify-chunk.ts";

/** Bytes per record beyond the object: its timestamp and offset in typed arrays. */
const RECORD_OVERHEAD = 12;

export interface ChunkLoaderOptions {
  url: UrlFetcher;
  /** Absent when the gateway has no S3 settings: raw entries are then a fault. */
  s3?: S3Fetcher;
  cacheBytes: number;
  /** Chunks being fetched at once: past it a load is refused (busy), and the star serves it. */
  loadingBytes: number;
  metrics: ReadPlanMetrics;
  /** Memory kept for chunks to come once the cache lets chunks go; default 32 MiB. */
  idleMemoryBytes?: number;
}

export interface ChunkLoader {
  load(entry: PlanEntry, signal: AbortSignal): Promise<VerifiedChunk>;
  close(): Promise<void>;
}

/**
 * The largest chunk object the loader fetches: a star cuts chunks at --settle-chunk-kb (1 MiB)
 * plus one record (at most 1 MiB with its headers) and a footer; a star set to cut them larger
 * than this is read through the star.
 */
export const MAX_CHUNK_OBJECT_BYTES = 256 * 1024 * 1024;

export function createChunkLoader(opts: ChunkLoaderOptions): ChunkLoader {
  const { metrics } = opts;
  const idleBytes = opts.idleMemoryBytes ?? 32 * 1024 * 1024;
  const memory = new ChunkMemoryPool(idleBytes);
  // A chunk the cache lets go gives its memory back, and lets go of it: whoever still holds the
  // chunk (a reader's read-ahead) finds that out before reading it (VerifiedChunk.copyRecords)
  // and loads it again, so only the cache and the loads in flight keep chunks' memory.
  const cache = new ChunkCache<VerifiedChunk>(
    opts.cacheBytes,
    (c) => c.bytesHeld + RECORD_OVERHEAD * c.count,
    (c) => {
      const lent = c.release();
      if (lent) memory.give(lent);
    },
  );
  metrics.memory.add(
    "readplan_cache",
    () => cache.bytes,
    () => opts.cacheBytes,
  );
  metrics.memory.add(
    "readplan_idle",
    () => memory.idleBytes,
    () => idleBytes,
  );
  // From a fetch's start to its chunk in the cache, or its memory given back.
  let loading = 0;
  metrics.memory.add(
    "readplan_loading",
    () => loading,
    () => opts.loadingBytes,
  );

  /** Reads the object into `into` (exactly its size). */
  const fetchInto = async (entry: PlanEntry, into: Buffer, signal: AbortSignal): Promise<void> => {
    const { location } = entry;
    if ("url" in location) {
      await opts.url.get(location.url, into.length, signal, () => into);
      return;
    }
    if (!opts.s3) {
      throw new ChunkFault("unavailable", "raw object entries need the gateway's --s3-* settings");
    }
    (await opts.s3.get(location.bucket, location.key, into.length, signal)).copy(into);
  };

  const fetchAndVerify = async (entry: PlanEntry, signal: AbortSignal): Promise<VerifiedChunk> => {
    const source = "url" in entry.location ? "url" : "s3";
    const size = entry.footerOff + entry.footerLen;
    // Taken before a byte arrives: a plan's numbers never make it more than a chunk can be.
    if (size > MAX_CHUNK_OBJECT_BYTES) {
      metrics.fetches.inc({ source, outcome: "corrupt" });
      throw new ChunkFault(
        "corrupt",
        `chunk ${entry.cacheKey}: the plan names ${size} bytes, more than a chunk object can be (${MAX_CHUNK_OBJECT_BYTES})`,
      );
    }
    // One fetch is always let through, however large its chunk: a budget under the largest chunk
    // would otherwise send that chunk to the star every time.
    if (loading > 0 && loading + size > opts.loadingBytes) {
      metrics.fetches.inc({ source, outcome: "busy" });
      throw new ChunkFault(
        "busy",
        `chunk ${entry.cacheKey}: ${size} bytes would pass --readplan-loading-mb with ${loading} bytes of chunks being fetched`,
      );
    }
    loading += size;
    const lent = memory.take(size);
    try {
      await fetchInto(entry, lent.bytes, signal);
      metrics.fetchedBytes.inc({ source }, lent.bytes.length);
      const chunk = verifyChunk(entry, lent);
      metrics.fetches.inc({ source, outcome: "ok" });
      return chunk;
    } catch (err) {
      // Nothing holds the memory but this load.
      memory.give(lent);
      if (!signal.aborted) {
        metrics.fetches.inc({ source, outcome: err instanceof ChunkFault ? err.reason : "error" });
      }
      throw err;
    } finally {
      loading -= size;
    }
  };

  return {
    async load(entry, signal) {
      const { value, outcome } = await cache.get(
        entry.cacheKey,
        (s) => fetchAndVerify(entry, s),
        signal,
      );
      if (outcome !== "loaded") metrics.cacheHits.inc({ kind: outcome });
      return value;
    },
    async close() {
      opts.s3?.close();
      await opts.url.close();
    },
  };
}
