// Chunk objects: written once when a group commit flushes, read back whole (and verified) for
// reads, and kept decoded in a byte-bounded cache so live readers never go to storage.
import {
  type ChunkRecord,
  type DecodedChunkRecord,
  decodeChunk,
  encodeChunk,
} from "../../contract/codec/index.ts";
import { ByteLru, compactRecords } from "../../platform/memory/index.ts";
import type { ObjectStore } from "../../platform/objstore/index.ts";
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
    this.#cache.set(objectKey, decoded, held);
    return { meta: { ...name, objectKey, size: chunk.bytes.length }, records: decoded };
  }

  /** Every record of a chunk, verified against its CRCs. */
  async records(meta: ChunkMeta): Promise<DecodedChunkRecord[]> {
    const cached = this.#cache.get(meta.objectKey);
    if (cached) return cached;
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
    const { records, held } = compactRecords(decodeChunk(bytes).records);
    this.#cache.set(meta.objectKey, records, held);
    return records;
  }

  async delete(metas: readonly ChunkMeta[]): Promise<void> {
    for (const m of metas) this.#cache.delete(m.objectKey);
    await this.store.delete(metas.map((m) => m.objectKey));
  }
}
