// A stream as a member that does not lead it sees it: the chunk directory from object listings
// (extended from the last key taken, so a refresh lists only what is new), the trim point read
// fresh for every use (the leader may have moved it a moment ago), and the highest tail the
// leader has reported. Everything a follower serves from storage is settled: a chunk is listed
// only once it is durable, and the leader acknowledges nothing before that.
import { unavailable } from "../errors.ts";
import type { Catalog } from "../storage/catalog.ts";
import { type ChunkStore, MissingChunkError } from "../storage/chunk-store.ts";
import { ChunkIndex } from "./chunk-index.ts";
import { extendFromListing } from "./chunk-listing.ts";
import type { Extent } from "./chunk-reads.ts";
import type { Pos } from "./stream-log.ts";

export class FollowerView {
  readonly streamId: string;
  readonly #chunks: ChunkStore;
  readonly #catalog: Catalog;
  readonly #index = new ChunkIndex();
  #lastKey: string | undefined;
  #learned: Pos = { seqNum: 0n, timestampMs: 0n };
  #listing: Promise<void> | undefined;
  #listed = false;

  constructor(streamId: string, chunks: ChunkStore, catalog: Catalog) {
    this.streamId = streamId;
    this.#chunks = chunks;
    this.#catalog = catalog;
  }

  /** One past the last listed record, and that record's timestamp. */
  get listedEnd(): Pos {
    const last = this.#index.last();
    return last
      ? { seqNum: last.firstSeqNum + BigInt(last.count), timestampMs: last.maxTimestampMs }
      : { seqNum: 0n, timestampMs: 0n };
  }

  /** The furthest tail known here: listed, or reported by the leader. */
  get knownTail(): Pos {
    const listed = this.listedEnd;
    return this.#learned.seqNum > listed.seqNum ? this.#learned : listed;
  }

  /** Records a tail the leader reported; chunks up to it are durable and can be listed. */
  learn(tail: Pos): void {
    if (tail.seqNum > this.#learned.seqNum) this.#learned = tail;
  }

  /** Lists the chunks written since the last listing; concurrent callers share one listing. */
  refresh(): Promise<void> {
    this.#listing ??= extendFromListing(
      this.#chunks.store,
      this.streamId,
      this.#index,
      this.#lastKey,
    )
      .then((key) => {
        this.#lastKey = key;
        this.#listed = true;
      })
      .finally(() => {
        this.#listing = undefined;
      });
    return this.#listing;
  }

  /**
   * Lists with a listing that begins after this call: one in flight may have begun before what
   * the caller read (a leader's log, which the leader settles into chunks and then deletes).
   */
  async refreshFromNow(): Promise<void> {
    await this.#listing?.catch(() => undefined);
    await this.refresh();
  }

  /** Lists once, the first time the view is used. */
  async ready(): Promise<void> {
    if (!this.#listed) await this.refresh();
  }

  /**
   * The readable extent now: the trim point read from storage, chunks the leader has reclaimed
   * dropped as the leader drops them (all wholly below the trim point but the newest).
   */
  async extent(): Promise<Extent> {
    await this.ready();
    const trim = BigInt((await this.#catalog.getState(this.streamId)).trim_seq_num);
    const last = this.#index.last();
    this.#index.dropBelow(last && last.firstSeqNum < trim ? last.firstSeqNum : trim);
    const end = this.listedEnd.seqNum;
    return { index: this.#index, trim, tail: this.#index.length > 0 ? end : trim, unsettled: [] };
  }
}

/** A chunk reclaimed between reading the trim point and the chunk: read the trim point again. */
export async function withRetry<T>(
  view: FollowerView,
  extent: Extent,
  fn: (extent: Extent) => Promise<T>,
): Promise<T> {
  try {
    return await fn(extent);
  } catch (err) {
    if (!(err instanceof MissingChunkError)) throw err;
  }
  try {
    return await fn(await view.extent());
  } catch (err) {
    if (!(err instanceof MissingChunkError)) throw err;
    throw unavailable(`the stream changed while it was read (${err.message}); read again`);
  }
}

/** The streams this member follows, by stream_id, the least recently used dropped past `max`. */
export class Followers {
  readonly #views = new Map<string, FollowerView>();
  readonly #max: number;
  readonly #chunks: ChunkStore;
  readonly #catalog: Catalog;
  readonly #shutdown = new AbortController();

  constructor(chunks: ChunkStore, catalog: Catalog, max: number) {
    this.#chunks = chunks;
    this.#catalog = catalog;
    this.#max = max;
  }

  /** Aborted when the star shuts down: follower subscriptions end UNAVAILABLE. */
  get shutdown(): AbortSignal {
    return this.#shutdown.signal;
  }

  close(): void {
    this.#shutdown.abort();
  }

  view(streamId: string): FollowerView {
    let view = this.#views.get(streamId);
    if (view) {
      this.#views.delete(streamId);
    } else {
      view = new FollowerView(streamId, this.#chunks, this.#catalog);
    }
    this.#views.set(streamId, view);
    for (const oldest of this.#views.keys()) {
      if (this.#views.size <= this.#max) break;
      this.#views.delete(oldest);
    }
    return view;
  }
}
