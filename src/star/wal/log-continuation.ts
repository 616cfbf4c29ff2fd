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
  for (const e of standingEntries(entries)) {
    const end = e.firstSeqNum + BigInt(e.records.length);
    if (end <= next) continue;
    if (e.firstSeqNum > next) return { records, gapAt: next };
    records.push(...e.records.slice(Number(next - e.firstSeqNum)));
    next = end;
  }
  return { records, gapAt: undefined };
}

/**
 * The entries (one stream's, in log order) that hold the stream. An entry whose seq_nums a later
 * entry takes again was a write the star saw fail (with more than one log PUT in flight, its PUT
 * may land) and whose void had not landed when the star stopped: the star had gone on from the
 * seq_nums it had, and acknowledged nothing after that entry (acks wait for the void). The later
 * entries are the stream, whole batches each; the failed one, its records and its producer
 * marks, is not.
 */
export function standingEntries(entries: readonly DecodedLogEntry[]): DecodedLogEntry[] {
  const standing: DecodedLogEntry[] = [];
  let floor: bigint | undefined;
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i] as DecodedLogEntry;
    if (floor !== undefined && e.firstSeqNum + BigInt(e.records.length) > floor) continue;
    standing.push(e);
    if (floor === undefined || e.firstSeqNum < floor) floor = e.firstSeqNum;
  }
  return standing.reverse();
}
