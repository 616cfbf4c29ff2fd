// Bucket and stream descriptors and per-stream state, as JSON objects in the object store (no
// second database), with a read-through cache. Descriptors use the proto shapes, so uint64
// fields are exact decimal strings.
import type { Bucket__Output } from "../../gen/nova/v1/Bucket.ts";
import type { Stream__Output } from "../../gen/nova/v1/Stream.ts";
import type { ObjectStore } from "../../objstore/object-store.ts";
import {
  BUCKETS_PREFIX,
  bucketKey,
  stateKey,
  streamKey,
  streamKeyFromObject,
  streamsPrefix,
} from "./keys.ts";

/** The mutable per-stream state that is not in the descriptor. */
export interface StreamState {
  trim_seq_num: string;
  fencing_token: string;
}

export const EMPTY_STATE: StreamState = { trim_seq_num: "0", fencing_token: "" };

export interface Page<T> {
  items: T[];
  next: string;
}

const json = (value: unknown) => Buffer.from(JSON.stringify(value));

export class Catalog {
  readonly #store: ObjectStore;
  readonly #buckets = new Map<string, Bucket__Output | null>();
  readonly #streams = new Map<string, Stream__Output | null>();

  constructor(store: ObjectStore) {
    this.#store = store;
  }

  async #read<T>(key: string): Promise<T | undefined> {
    const bytes = await this.#store.get(key);
    return bytes === undefined ? undefined : (JSON.parse(bytes.toString("utf8")) as T);
  }

  async getBucket(name: string): Promise<Bucket__Output | undefined> {
    const cached = this.#buckets.get(name);
    if (cached !== undefined) return cached ?? undefined;
    const found = await this.#read<Bucket__Output>(bucketKey(name));
    this.#buckets.set(name, found ?? null);
    return found;
  }

  async putBucket(bucket: Bucket__Output): Promise<void> {
    await this.#store.put(bucketKey(bucket.name), json(bucket));
    this.#buckets.set(bucket.name, bucket);
  }

  /** Live buckets in name order, after `startAfter`, at most `limit`. */
  async listBuckets(
    prefix: string,
    startAfter: string,
    limit: number,
  ): Promise<Page<Bucket__Output>> {
    const items: Bucket__Output[] = [];
    const from = startAfter > prefix ? BUCKETS_PREFIX + startAfter : undefined;
    for await (const obj of this.#store.listAll(BUCKETS_PREFIX + prefix, { startAfter: from })) {
      const bucket = await this.getBucket(obj.key.slice(BUCKETS_PREFIX.length));
      if (bucket?.deleted_at_unix_ms !== "0") continue;
      if (items.length === limit) return { items, next: items[items.length - 1]?.name ?? "" };
      items.push(bucket);
    }
    return { items, next: "" };
  }

  async getStream(bucket: string, key: string): Promise<Stream__Output | undefined> {
    const objectKey = streamKey(bucket, key);
    const cached = this.#streams.get(objectKey);
    if (cached !== undefined) return cached ?? undefined;
    const found = await this.#read<Stream__Output>(objectKey);
    this.#streams.set(objectKey, found ?? null);
    return found;
  }

  async putStream(stream: Stream__Output): Promise<void> {
    const objectKey = streamKey(stream.bucket, stream.key);
    await this.#store.put(objectKey, json(stream));
    this.#streams.set(objectKey, stream);
  }

  /**
   * Stream descriptors of a bucket in key order (tombstones included, for the caller to filter),
   * starting after the stream key `startAfter`.
   */
  async *streams(bucket: string, startAfter: string): AsyncIterable<Stream__Output> {
    const from = startAfter === "" ? undefined : streamKey(bucket, startAfter);
    for await (const obj of this.#store.listAll(streamsPrefix(bucket), { startAfter: from })) {
      const stream = await this.getStream(bucket, streamKeyFromObject(bucket, obj.key));
      if (stream) yield stream;
    }
  }

  async getState(streamId: string): Promise<StreamState> {
    return (await this.#read<StreamState>(stateKey(streamId))) ?? { ...EMPTY_STATE };
  }

  async putState(streamId: string, state: StreamState): Promise<void> {
    await this.#store.put(stateKey(streamId), json(state));
  }

  async deleteState(streamId: string): Promise<void> {
    await this.#store.delete([stateKey(streamId)]);
  }
}
