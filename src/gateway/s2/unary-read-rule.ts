// How S2 answers a unary read (no `wait`) where nova answers 200: a read that finds no record
// because it starts at the tail (given there, or clamped to it) is 416 with the tail, and a read
// limited to `count=0` or `bytes=0` is 200 with no records (nova takes 0 as "no limit").
import type { S2ReadQuery } from "./read-query.ts";

/** The read asks for nothing: it answers no records (after the start is checked). */
export function asksForNothing(q: Pick<S2ReadQuery, "zeroLimit">): boolean {
  return q.zeroLimit === true;
}

/**
 * Whether a unary read that came back with no records started at the tail (S2's 416). Without
 * `until` an empty page means exactly that; with it, only a start known to be at the tail (a
 * seq_num at or past it, tail_offset 0, a timestamp after the tail's, or an empty stream) does,
 * as `until` may have cut the rest.
 */
export function emptyAtTail(
  q: Pick<S2ReadQuery, "query" | "untilMs">,
  records: number,
  tail: { seqNum: bigint; timestampMs: bigint },
): boolean {
  if (records > 0) return false;
  if (q.untilMs === undefined || tail.seqNum === 0n) return true;
  const { start } = q.query;
  if ("seq_num" in start) return BigInt(start.seq_num) >= tail.seqNum;
  if ("timestamp_ms" in start) return BigInt(start.timestamp_ms) > tail.timestampMs;
  return "tail_offset" in start && BigInt(start.tail_offset) === 0n;
}
