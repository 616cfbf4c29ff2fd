// Where recent page reads of each stream ended, so that a client paging through history is
// recognised and read ahead of: its page k + 1 starts where page k ended. A first page (or a
// jump) fetches only the chunks it needs and the one after; a page that follows the last one
// asks for --readplan-prefetch chunks beyond it, so the next pages find them fetched. Bounded:
// the least recently paged stream is forgotten first.

/** A stream, as a read names it. */
export interface StreamAddress {
  bucket: string;
  key: string;
}

const streamKey = (a: StreamAddress) => `${a.bucket}/${a.key}`;

export class PageTrail {
  readonly #ends = new Map<string, bigint>();
  readonly #max: number;

  constructor(maxStreams: number) {
    this.#max = maxStreams;
  }

  /** Whether a page of `stream` starting at `seqNum` continues a page read before it. */
  follows(stream: StreamAddress, seqNum: bigint): boolean {
    return this.#ends.get(streamKey(stream)) === seqNum;
  }

  /** A page of `stream` ended: its next page would start at `next`. */
  ended(stream: StreamAddress, next: bigint): void {
    const key = streamKey(stream);
    this.#ends.delete(key);
    this.#ends.set(key, next);
    if (this.#ends.size > this.#max) {
      const oldest = this.#ends.keys().next().value as string;
      this.#ends.delete(oldest);
    }
  }

  get size(): number {
    return this.#ends.size;
  }
}
