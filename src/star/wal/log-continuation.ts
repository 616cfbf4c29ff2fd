// Where a stream's records continue in log objects: from a seq_num (the end of its chunks, or a
// reader's cursor) through its entries in log order, contiguous. Replay settles what it finds;
// a member reading a stopped leader's stream serves it.
import type { DecodedChunkRecord, DecodedLogEntry } from "../../contract/codec/index.ts";

export interface Continuation {
  records: DecodedChunkRecord[];
  /** An entry started past where the records reached: none after it can be placed. */
  gapAt: bigint | undefined;
}

/**
 * The records at and after `from` in `entries` (one stream's, in log order) without a gap;
 * entries wholly below `from` were settled before (replay) or are behind the reader.
 */
export function continueFrom(entries: readonly DecodedLogEntry[], from: bigint): Continuation {
  const records: DecodedChunkRecord[] = [];
  let next = from;
  for (const e of entries) {
    const end = e.firstSeqNum + BigInt(e.records.length);
    if (end <= next) continue;
    if (e.firstSeqNum > next) return { records, gapAt: next };
    records.push(...e.records.slice(Number(next - e.firstSeqNum)));
    next = end;
  }
  return { records, gapAt: undefined };
}
