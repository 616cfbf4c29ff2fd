// Which chunks a ReadPlan vends (docs/readplan.md): from the chunk that holds the start (or the
// first one after it), contiguous, at most `limit`, and never a chunk holding any record below
// the trim point, so no vended byte range holds a trimmed record. A reader reads any gap between
// its cursor and the first entry, and everything from the last entry's end, through Read.
import type { ChunkMeta } from "./chunk-index.ts";

export interface ChunkPlan {
  chunks: ChunkMeta[];
  /** More settled chunks follow the last one vended. */
  more: boolean;
}

const end = (c: ChunkMeta) => c.firstSeqNum + BigInt(c.count);

/** `chunks` in seq_num order and contiguous, as a stream's index holds them. */
export function planChunks(
  chunks: readonly ChunkMeta[],
  start: bigint,
  trim: bigint,
  limit: number,
): ChunkPlan {
  // The first chunk that ends past the start and holds nothing below the trim point.
  let lo = 0;
  let hi = chunks.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const c = chunks[mid] as ChunkMeta;
    if (end(c) <= start || c.firstSeqNum < trim) lo = mid + 1;
    else hi = mid;
  }
  const taken = chunks.slice(lo, lo + limit);
  return { chunks: taken, more: lo + taken.length < chunks.length };
}
