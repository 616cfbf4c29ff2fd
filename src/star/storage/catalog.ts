// Bucket and stream descriptors and per-stream state, as JSON objects in the object store (no
// second database), with a read-through cache bounded by count. Descriptors use the proto
// shapes, so uint64 fields are exact decimal strings. In a fleet other members write descriptors
// too (each one those it leads), so a cached descriptor is trusted for `ttlMs` only
// (docs/fleet.md); the state object is never cached here: its writer, the stream's leader, keeps
// it in its log.
import type { Bucket__Output } from "../../gen/nova/v1/Bucket.ts";
import type { Stream__Output } from "../../gen/nova/v1/Stream.ts";
import type { ObjectStore } from "../../platform/objstore/index.ts";
import type { StoredProducers } from "../producers/producer-table.ts";
import {
  BUCKETS_PREFIX,
  bucketKey,
  stateKey,
  streamKey,
  streamKeyFromObject,
  streamsPrefixOf,
} from "./keys.ts";

/** The mutable per-stream state that is not in the descriptor. */
export interface StreamState {
  trim_seq_num: string;
  fencing_token: string;
  /** Idempotent producers (docs/producers.md); absent when none ever appended. */
  producers?: StoredProducers;
  /** Closed for appends. */
  closed?: boolean;
  /**
   * Every command record below this seq_num is applied in this state (the stream's tail when it
   * was written): replay applies only those at or past it. Absent: none was ever written.
   */
  commands_through?: string;
  /** The last writer seq an append took (Durable Streams' Stream-Seq); absent: none. */
  writer_seq?: string;
}

export const EMPTY_STATE: StreamState = { trim_seq_num: "0", fencing_token: "" };

export interface VersionedState {
  state: StreamState;
  /** The state object's ETag; undefined when there is none. */
  etag: string | undefined;
}

export interface Page<T> {
  items: T[];
  next: string;
}

const json = (value: unknown) => Buffer.from(JSON.stringify(value));

/** A cached descriptor (null: known not to exist) and when it was read or written. */
interface Entry<T> {
  value: T | null;
  at: number;
}

export interface CatalogOptions {
  /** How long a cached descriptor is trusted; default forever (a fleet of one). */
  ttlMs?: number;
  /** Descriptors kept of each kind (buckets, streams), the least recently used dropped. */
  maxEntries?: number;
  now?: () => number;
}

/**
 * Descriptors cached of each kind by default: a few MiB. Listings read every descriptor they
 * page over, and a miss is cached too, so without a bound any caller could grow the cache.
 */
export const DESCRIPTORS_KEPT = 10_000;

export interface ReadOptions {
  /** Read from the store whatever the cache holds. */
  fresh?: boolean;
}

/**
 * Fields added to descriptors after some were written, with what a descriptor that has none
 * means: filled in as a descriptor is read, so no reader has to know its age.
 */
const BUCKET_ADDED = {
  default_delete_on_empty_min_age_ms: "0",
  creation_digest: "",
  streams_swept: false,
} satisfies Partial<Bucket__Output>;
const STREAM_ADDED = {
  delete_on_empty_min_age_ms: "0",
  content_type: "",
  expire_idle_ms: "0",
  expires_at_unix_ms: "0",
  fork_origin: "",
  forked: false,
  retired_at_unix_ms: "0",
  creation_digest: "",
} satisfies Partial<Stream__Output>;

export class Catalog {
  readonly #store: ObjectStore;
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #now: () => number;
  readonly #buckets = new Map<string, Entry<Bucket__Output>>();
  readonly #streams = new Map<string, Entry<Stream__Output>>();
  /** Counts descriptor writes, so a read can tell that one landed while it was out. */
  #writes = 0;

  constructor(store: ObjectStore, options: CatalogOptions = {}) {
    this.#store = store;
    this.#ttlMs = options.ttlMs ?? Number.POSITIVE_INFINITY;
    this.#maxEntries = options.maxEntries ?? DESCRIPTORS_KEPT;
    this.#now = options.now ?? Date.now;
  }

  /** Caches an entry as the most recently used, dropping the least recently used past the cap. */
  #keep<T>(cache: Map<string, Entry<T>>, objectKey: string, entry: Entry<T>): void {
    cache.delete(objectKey);
    cache.set(objectKey, entry);
    for (const oldest of cache.keys()) {
      if (cache.size <= this.#maxEntries) break;
      cache.delete(oldest);
    }
  }

  async #read<T>(key: string): Promise<T | undefined> {
    const bytes = await this.#store.get(key);
    return bytes === undefined ? undefined : (JSON.parse(bytes.toString("utf8")) as T);
  }

  /** Read-through: a write that lands while the read is out wins over what the read found. */
  async #cached<T>(
    cache: Map<string, Entry<T>>,
    objectKey: string,
    opts: ReadOptions,
    added: Partial<T>,
  ): Promise<T | undefined> {
    const before = cache.get(objectKey);
    if (before && !opts.fresh && this.#now() - before.at < this.#ttlMs) {
      this.#keep(cache, objectKey, before);
      return before.value ?? undefined;
    }
    const writes = this.#writes;
    const stored = await this.#read<T>(objectKey);
    const found = stored && { ...added, ...stored };
    const now = cache.get(objectKey);
    if (now !== before && now !== undefined) return now.value ?? undefined;
    // A write landed and was dropped from the cache meanwhile: what this read found may be
    // older than it, so it is not cached (a fleet of one would trust it forever).
    if (this.#writes !== writes) return found;
    this.#keep(cache, objectKey, { value: found ?? null, at: this.#now() });
    return found;
  }

  getBucket(name: string, opts: ReadOptions = {}): Promise<Bucket__Output | undefined> {
    return this.#cached(this.#buckets, bucketKey(name), opts, BUCKET_ADDED);
  }

  async putBucket(bucket: Bucket__Output): Promise<void> {
    await this.#put(this.#buckets, bucketKey(bucket.name), bucket);
    this.rememberBucket(bucket);
  }

  /**
   * Writes a descriptor. One whose write failed may still have landed (its answer lost): what
   * was cached of it is dropped, and reads out meanwhile do not cache theirs, so the next read
   * asks storage.
   */
  async #put<T>(cache: Map<string, Entry<T>>, objectKey: string, value: T): Promise<void> {
    try {
      await this.#store.put(objectKey, json(value));
    } catch (err) {
      this.#writes++;
      cache.delete(objectKey);
      throw err;
    }
  }

  /** Caches a bucket descriptor another member wrote and answered with. */
  rememberBucket(bucket: Bucket__Output): void {
    this.#writes++;
    this.#keep(this.#buckets, bucketKey(bucket.name), { value: bucket, at: this.#now() });
  }

  /** Live buckets in name order, after `startAfter`, at most `limit`. */
  async listBuckets(
    prefix: string,
    startAfter: string,
    limit: number,
  ): Promise<Page<Bucket__Output>> {
    const items: Bucket__Output[] = [];
    // A start_after equal to the prefix names a bucket the page must not repeat.
    const from =
      startAfter >= prefix && startAfter !== "" ? BUCKETS_PREFIX + startAfter : undefined;
    for await (const obj of this.#store.listAll(BUCKETS_PREFIX + prefix, { startAfter: from })) {
      const bucket = await this.getBucket(obj.key.slice(BUCKETS_PREFIX.length));
      if (bucket?.deleted_at_unix_ms !== "0") continue;
      if (items.length === limit) return { items, next: items[items.length - 1]?.name ?? "" };
      items.push(bucket);
    }
    return { items, next: "" };
  }

  getStream(
    bucket: string,
    key: string,
    opts: ReadOptions = {},
  ): Promise<Stream__Output | undefined> {
    return this.#cached(this.#streams, streamKey(bucket, key), opts, STREAM_ADDED);
  }

  async putStream(stream: Stream__Output): Promise<void> {
    await this.#put(this.#streams, streamKey(stream.bucket, stream.key), stream);
    this.rememberStream(stream);
  }

  /** Caches a stream descriptor another member wrote and answered with. */
  rememberStream(stream: Stream__Output): void {
    this.#writes++;
    this.#keep(this.#streams, streamKey(stream.bucket, stream.key), {
      value: stream,
      at: this.#now(),
    });
  }

  /**
   * Stream descriptors of a bucket in key order (tombstones included, for the caller to filter),
   * starting after the stream key `startAfter`: those whose key begins with `prefix`, and a few
   * beside them (the listing's prefix is the keys' encoding, cut to whole characters).
   */
  async *streams(
    bucket: string,
    startAfter: string,
    prefix = "",
    opts: ReadOptions = {},
  ): AsyncIterable<Stream__Output> {
    const from = startAfter === "" ? undefined : streamKey(bucket, startAfter);
    const listed = streamsPrefixOf(bucket, prefix);
    for await (const obj of this.#store.listAll(listed, { startAfter: from })) {
      const stream = await this.getStream(bucket, streamKeyFromObject(bucket, obj.key), opts);
      if (stream) yield stream;
    }
  }

  async getState(streamId: string): Promise<StreamState> {
    return (await this.#read<StreamState>(stateKey(streamId))) ?? { ...EMPTY_STATE };
  }

  /** A stream's state with its ETag (undefined: no state object yet), for putStateIf. */
  async readState(streamId: string): Promise<VersionedState> {
    const got = await this.#store.getVersioned(stateKey(streamId));
    if (!got) return { state: { ...EMPTY_STATE }, etag: undefined };
    return { state: JSON.parse(got.body.toString("utf8")) as StreamState, etag: got.etag };
  }

  /**
   * Writes a stream's state only over the one read as `etag` (undefined: over none): the new
   * ETag, or undefined when another write came between. The state object has one writer, the
   * stream's leader, but a lost member's write, or a takeover's replay, may still land late.
   */
  putStateIf(
    streamId: string,
    state: StreamState,
    etag: string | undefined,
  ): Promise<string | undefined> {
    return this.#store.putIf(
      stateKey(streamId),
      json(state),
      etag === undefined ? { ifNoneMatch: "*" } : { ifMatch: etag },
    );
  }

  async deleteState(streamId: string): Promise<void> {
    await this.#store.delete([stateKey(streamId)]);
  }
}
