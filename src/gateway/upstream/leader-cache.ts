// Which star leads a stream, as learned from NotOwner refusals, so the next call for it goes
// there directly. Bounded LRU: the gateway serves any number of streams over its lifetime.
// An entry is only a hint: a stale one costs one more redirect, never a wrong answer.

export const DEFAULT_MAX_LEADERS = 100_000;

export class LeaderCache {
  readonly #max: number;
  /** Stream -> leader address; Map iteration order is the recency order (oldest first). */
  readonly #leaders = new Map<string, string>();
  /** Address -> streams it leads, so dropping a dead star does not scan every entry. */
  readonly #byAddress = new Map<string, Set<string>>();

  constructor(maxEntries = DEFAULT_MAX_LEADERS) {
    if (!(maxEntries >= 1))
      throw new RangeError(`maxEntries must be at least 1, got ${maxEntries}`);
    this.#max = maxEntries;
  }

  get size(): number {
    return this.#leaders.size;
  }

  /** The cached leader of a stream; a hit makes it the most recently used. */
  get(bucket: string, key: string): string | undefined {
    const id = streamId(bucket, key);
    const address = this.#leaders.get(id);
    if (address !== undefined) {
      this.#leaders.delete(id);
      this.#leaders.set(id, address);
    }
    return address;
  }

  set(bucket: string, key: string, address: string): void {
    const id = streamId(bucket, key);
    this.#remove(id);
    this.#leaders.set(id, address);
    let streams = this.#byAddress.get(address);
    if (!streams) {
      streams = new Set();
      this.#byAddress.set(address, streams);
    }
    streams.add(id);
    for (const oldest of this.#leaders.keys()) {
      if (this.#leaders.size <= this.#max) break;
      this.#remove(oldest);
    }
  }

  forget(bucket: string, key: string): void {
    this.#remove(streamId(bucket, key));
  }

  /** Drops every stream led by a star that stopped answering. */
  forgetAddress(address: string): void {
    for (const id of this.#byAddress.get(address) ?? []) this.#leaders.delete(id);
    this.#byAddress.delete(address);
  }

  #remove(id: string): void {
    const address = this.#leaders.get(id);
    if (address === undefined) return;
    this.#leaders.delete(id);
    const streams = this.#byAddress.get(address);
    streams?.delete(id);
    if (streams?.size === 0) this.#byAddress.delete(address);
  }
}

/** Length-prefixed, so no bucket/key pair collides with another whatever bytes they hold. */
function streamId(bucket: string, key: string): string {
  return `${bucket.length}:${bucket}/${key}`;
}
