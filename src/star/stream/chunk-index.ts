// The in-memory directory of a stream's chunks, in seq_num order, searched by seq_num and by
// timestamp without reading any record.
import type { ChunkName } from "../storage/keys.ts";

export interface ChunkMeta extends ChunkName {
  objectKey: string;
  /** Total object size; the footer starts at size - footerLength. */
  size: number;
}

export class ChunkIndex {
  readonly #chunks: ChunkMeta[] = [];

  get chunks(): readonly ChunkMeta[] {
    return this.#chunks;
  }

  get length(): number {
    return this.#chunks.length;
  }

  last(): ChunkMeta | undefined {
    return this.#chunks[this.#chunks.length - 1];
  }

  /** Adds the next chunk; it must start where the last one ends. */
  push(meta: ChunkMeta): void {
    const last = this.last();
    if (last && last.firstSeqNum + BigInt(last.count) !== meta.firstSeqNum) {
      throw new Error(
        `chunk ${meta.objectKey} starts at ${meta.firstSeqNum}, expected ${last.firstSeqNum + BigInt(last.count)}`,
      );
    }
    this.#chunks.push(meta);
  }

  /** The position of the chunk holding `seq`, or -1 when no chunk does. */
  findBySeq(seq: bigint): number {
    let lo = 0;
    let hi = this.#chunks.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const c = this.#chunks[mid] as ChunkMeta;
      if (seq < c.firstSeqNum) hi = mid - 1;
      else if (seq >= c.firstSeqNum + BigInt(c.count)) lo = mid + 1;
      else return mid;
    }
    return -1;
  }

  /** The position of the first chunk that holds a record at or above `seq` (the count if none). */
  firstEndingAbove(seq: bigint): number {
    let lo = 0;
    let hi = this.#chunks.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const c = this.#chunks[mid] as ChunkMeta;
      if (c.firstSeqNum + BigInt(c.count) <= seq) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The position of the first chunk whose newest record is stamped at or after `ts`, or -1. */
  findByTimestamp(ts: bigint, fromIndex = 0): number {
    let lo = fromIndex;
    let hi = this.#chunks.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.#chunks[mid] as ChunkMeta).maxTimestampMs < ts) lo = mid + 1;
      else hi = mid;
    }
    return lo < this.#chunks.length ? lo : -1;
  }

  /** Removes and returns the chunks that lie wholly below `seq`. */
  dropBelow(seq: bigint): ChunkMeta[] {
    let n = 0;
    while (n < this.#chunks.length) {
      const c = this.#chunks[n] as ChunkMeta;
      if (c.firstSeqNum + BigInt(c.count) > seq) break;
      n++;
    }
    return this.#chunks.splice(0, n);
  }

  /** Removes and returns every chunk. */
  clear(): ChunkMeta[] {
    return this.#chunks.splice(0);
  }
}
