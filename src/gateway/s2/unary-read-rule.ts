// How S2 answers a unary read without `wait` where nova answers 200: a read that starts at the
// tail is 416 with the tail, and a read limited to `count=0` or `bytes=0` is 200 with no records
// (nova takes 0 as "no limit"). A read that may wait is judged before it starts
// (session-start-rule.ts).
import type { S2ReadQuery } from "./read-query.ts";

/** The read asks for nothing: it answers no records (after the start is checked). */
export function asksForNothing(q: Pick<S2ReadQuery, "count" | "bytes">): boolean {
  return q.count === 0n || q.bytes === 0n;
}

/**
 * Whether a unary read (no `wait`) that came back with no records is S2's 416, which S2 decides
 * from the start alone: a seq_num at or past the tail (given, or clamped there), a tail_offset
 * that lands on the tail (0, or any on an empty stream), or a timestamp after the tail's. A start
 * before the tail that finds nothing (trimmed, or cut by `until`) is 200 with no records.
 */
export function emptyAtTail(
  q: Pick<S2ReadQuery, "query">,
  records: number,
  tail: { seqNum: bigint; timestampMs: bigint },
): boolean {
  if (records > 0) return false;
  const { start } = q.query;
  if ("timestamp_ms" in start) return BigInt(start.timestamp_ms) > tail.timestampMs;
  if ("tail_offset" in start) return BigInt(start.tail_offset) === 0n || tail.seqNum === 0n;
  return "seq_num" in start && BigInt(start.seq_num) >= tail.seqNum;
}
