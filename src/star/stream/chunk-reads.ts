// Reading a stream's records out of its chunks and then its unsettled records, the same way for
// the leader (its own log, unsettled records in memory) and for a member that follows the stream
// from storage (unsettled records from a stopped leader's log objects, or none): one page from a
// start, and the resolution of a timestamp by search over chunk timestamps (one chunk decoded,
// never a scan).
import type { DecodedChunkRecord } from "../../contract/codec/index.ts";
import { contentBytes } from "../../contract/codec/index.ts";
import { PageRule } from "../../contract/page-rule.ts";
import type { ChunkStore } from "../storage/chunk-store.ts";
import type { ChunkIndex, ChunkMeta } from "./chunk-index.ts";

export interface ReadBounds {
  maxRecords: number;
  maxBytes: number;
  untilMs?: bigint;
}

/** A stream's readable extent: records in [trim, tail), in its chunks and then unsettled. */
export interface Extent {
  index: ChunkIndex;
  trim: bigint;
  tail: bigint;
  /** Acked records past the chunks, in order and contiguous. */
  unsettled: readonly DecodedChunkRecord[];
}

/** The unsettled record numbered `seq`, if the extent holds it. */
function unsettledAt(unsettled: readonly DecodedChunkRecord[], seq: bigint) {
  const first = unsettled[0]?.seqNum;
  return first === undefined || seq < first ? undefined : unsettled[Number(seq - first)];
}

/** One page from `start` (raised to the trim point): at least one record when one exists. */
export async function readPage(
  chunks: ChunkStore,
  { index, trim, tail, unsettled }: Extent,
  start: bigint,
  bounds: ReadBounds,
): Promise<DecodedChunkRecord[]> {
  const out: DecodedChunkRecord[] = [];
  const rule = new PageRule(bounds.maxRecords, bounds.maxBytes, bounds.untilMs);
  const first = index.chunks[0]?.firstSeqNum ?? unsettled[0]?.seqNum ?? tail;
  let seq = start < trim ? trim : start;
  if (seq < first) seq = first;
  // Each chunk is found again by seq_num: while a chunk loads, a reclaim or a refreshed listing
  // may splice the index, so a position taken before the await can point at another chunk.
  let i = index.findBySeq(seq);
  while (i >= 0 && !rule.full) {
    const meta = index.chunks[i] as ChunkMeta;
    const records = await chunks.records(meta);
    for (let r = Number(seq - meta.firstSeqNum); r < records.length; r++) {
      const rec = records[r] as DecodedChunkRecord;
      const size = contentBytes(rec);
      if (!rule.admits(rec.timestampMs, size)) return out;
      out.push(rec);
      rule.take(size);
      seq = rec.seqNum + 1n;
    }
    const next = index.findBySeq(seq);
    // A chunk holding fewer records than its name says ends the read instead of looping on it.
    if (index.chunks[next] === meta) return out;
    i = next;
  }
  // Past the chunks: the unsettled records (a settle meanwhile leaves them valid here).
  for (
    let rec = unsettledAt(unsettled, seq);
    rec && !rule.full;
    rec = unsettledAt(unsettled, seq)
  ) {
    const size = contentBytes(rec);
    if (!rule.admits(rec.timestampMs, size)) return out;
    out.push(rec);
    rule.take(size);
    seq = rec.seqNum + 1n;
  }
  return out;
}

/** The first seq_num at or above the trim point stamped at or after `ts` (the tail if none). */
export async function seqForTimestamp(
  chunks: ChunkStore,
  { index, trim, tail, unsettled }: Extent,
  ts: bigint,
): Promise<bigint> {
  // From the first chunk above the trim point: those below it (not yet reclaimed) hold no hit.
  let i = index.findByTimestamp(ts, index.firstEndingAbove(trim));
  while (i >= 0) {
    const meta = index.chunks[i] as ChunkMeta;
    const records = await chunks.records(meta);
    const hit = records.find((r) => r.timestampMs >= ts && r.seqNum >= trim);
    if (hit) return hit.seqNum;
    // Found again by seq_num, as readPage does: the index may have been spliced meanwhile.
    i = index.findBySeq(meta.firstSeqNum + BigInt(meta.count));
  }
  const hit = unsettled.find((r) => r.timestampMs >= ts && r.seqNum >= trim);
  return hit ? hit.seqNum : tail;
}
