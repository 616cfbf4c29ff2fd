// Chunk objects: written once when a group commit flushes, read back whole (and verified) for
// reads, and kept decoded in a byte-bounded cache. A chunk just written stays cached while it is
// its stream's newest, for readers just behind the settle point; an older one stays only once
// read, so the cache fills with what is read, not at the rate data arrives.
import {
  type ChunkRecord,
  CorruptionError,
  type DecodedChunkRecord,
  decodeChunk,
  encodeChunk,
} from "../../contract/codec/index.ts";
import { ByteLru, compactRecords } from "../../platform/memory/index.ts";
import type { ObjectStore } from "../../platform/objstore/index.ts";
import { logDamaged, type StarError } from "../errors.ts";
import type { ChunkMeta } from "../stream/chunk-index.ts";
import { chunkKey } from "./keys.ts";
import { PresignedUrls } from "./presigned-urls.ts";

/** Presigned chunk URLs kept for ReadPlan: about 700 bytes each. */
const PRESIGNED_URLS_KEPT = 20_000;

/** A chunk the index names is gone from storage: reclaimed after a trim, or its stream deleted. */
export class MissingChunkError extends Error {
  override readonly name = "MissingChunkError";
}

export class ChunkStore {
  readonly store: ObjectStore;
  readonly urls: PresignedUrls;
  readonly #cache: ByteLru<DecodedChunkRecord[]>;
  readonly #loading = new Map<string, Promise<DecodedChunkRecord[]>>();
  /** Per stream, the newest chunk it wrote, while nobody has read it: stream id to object key. */
  readonly #newestUnread = new Map<string, string>();
  /** The same, object key to stream id. */
  readonly #unreadStream = new Map<string, string>();

  /** The memory the decoded chunks kept hold. */
  get cacheBytes(): number {
    return this.#cache.bytes;
  }

  constructor(store: ObjectStore, cacheBytes: number) {
    this.store = store;
    this.urls = new PresignedUrls(store, PRESIGNED_URLS_KEPT);
    this.#cache = new ByteLru(cacheBytes);
  }

  /** Encodes and durably writes one chunk; resolves only once the object store has it. */
  async write(
    streamId: string,
    firstSeqNum: bigint,
    records: ChunkRecord[],
    contentBytes: number,
  ): Promise<{ meta: ChunkMeta; records: DecodedChunkRecord[] }> {
    const chunk = encodeChunk(firstSeqNum, records);
    const name = {
      firstSeqNum,
      count: chunk.count,
      footerLength: chunk.footerLength,
      contentBytes,
      minTimestampMs: chunk.minTimestampMs,
      maxTimestampMs: chunk.maxTimestampMs,
    };
    const objectKey = chunkKey(streamId, name);
    await this.store.put(objectKey, chunk.bytes);
    const { records: decoded, held } = compactRecords(
      records.map((r, i) => ({
        seqNum: firstSeqNum + BigInt(i),
        timestampMs: r.timestampMs,
        headers: r.headers,
        body: r.body,
      })),
    );
    this.#dropNewestUnread(streamId);
    this.#cache.set(objectKey, decoded, held);
    this.#newestUnread.set(streamId, objectKey);
    this.#unreadStream.set(objectKey, streamId);
    return { meta: { ...name, objectKey, size: chunk.bytes.length }, records: decoded };
  }

  /** Every record of a chunk, verified against its CRCs. */
  async records(meta: ChunkMeta): Promise<DecodedChunkRecord[]> {
    const cached = this.#cache.get(meta.objectKey);
    if (cached) {
      this.#markRead(meta.objectKey);
      return cached;
    }
    let loading = this.#loading.get(meta.objectKey);
    if (!loading) {
      loading = this.#load(meta).finally(() => this.#loading.delete(meta.objectKey));
      this.#loading.set(meta.objectKey, loading);
    }
    return loading;
  }

  async #load(meta: ChunkMeta): Promise<DecodedChunkRecord[]> {
    const bytes = await this.store.get(meta.objectKey);
    if (bytes === undefined) throw new MissingChunkError(`chunk ${meta.objectKey} is missing`);
    const decoded = damagedAs503(meta.objectKey, () => decodeChunk(bytes));
    // Reads find a record by its place in the chunk the index names: a chunk that holds other
    // seq_nums than its name says would hand out the wrong records.
    const { firstSeqNum, count } = decoded.footer;
    if (firstSeqNum !== meta.firstSeqNum || count !== meta.count) {
      throw damaged(
        meta.objectKey,
        `it holds records [${firstSeqNum}, ${firstSeqNum + BigInt(count)}), not [${meta.firstSeqNum}, ${meta.firstSeqNum + BigInt(meta.count)}) as its name says`,
      );
    }
    const { records, held } = compactRecords(decoded.records);
    // Read back after the cache let it go: it stays as any chunk read does.
    this.#markRead(meta.objectKey);
    this.#cache.set(meta.objectKey, records, held);
    return records;
  }

  #markRead(objectKey: string): void {
    const streamId = this.#unreadStream.get(objectKey);
    if (streamId === undefined) return;
    this.#unreadStream.delete(objectKey);
    this.#newestUnread.delete(streamId);
  }

  /** The stream's newest chunk leaves memory if nobody has read it. */
  #dropNewestUnread(streamId: string): void {
    const objectKey = this.#newestUnread.get(streamId);
    if (objectKey === undefined) return;
    this.#markRead(objectKey);
    this.#cache.delete(objectKey);
  }

  /** A stream this star no longer holds (deleted, or led elsewhere): its newest chunk leaves. */
  forget(streamId: string): void {
    this.#dropNewestUnread(streamId);
  }

  async delete(metas: readonly ChunkMeta[]): Promise<void> {
    for (const m of metas) {
      this.#markRead(m.objectKey);
      this.#cache.delete(m.objectKey);
    }
    await this.store.delete(metas.map((m) => m.objectKey));
  }
}

/**
 * A chunk that does not read back as written: every star reads the same object, so the call is
 * UNAVAILABLE with a LogDamaged detail naming it (an operator's matter, which the gateway passes
 * on rather than trying another star), not an internal error.
 */
function damaged(key: string, why: string): StarError {
  return logDamaged(`chunk ${key} is damaged: ${why}; its records cannot be served`, {
    starId: "",
    objectKey: key,
  });
}

function damagedAs503<T>(key: string, decode: () => T): T {
  try {
    return decode();
  } catch (err) {
    if (err instanceof CorruptionError) throw damaged(key, err.message);
    throw err;
  }
}
