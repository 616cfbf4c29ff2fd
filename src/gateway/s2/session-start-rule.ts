// Where S2 refuses a read session (SSE or s2s) before it starts, as it refuses any read
// (read_start_seq_num in S2's server): a start after the tail, a seq_num past it or a timestamp
// after the tail's, is 416 unless `clamp` takes it to the tail; and a session that starts at the
// tail but may not follow there (bounded by count, bytes or until, without `wait`) is 416 too.
// A timestamp at or before the tail's is never refused. Pure: no I/O.
import type { Position__Output } from "../../gen/nova/v1/Position.ts";
import { mayFollow, type S2ReadQuery } from "./read-query.ts";

/**
 * Whether the gateway asks for the tail before the session: else the rule does not refuse it,
 * but for a seq_num past the tail without clamp, which the star's own Subscribe refuses
 * (OUT_OF_RANGE, S2's 416) before the session sends anything.
 */
export function startNeedsTail(q: S2ReadQuery): boolean {
  const { start, clamp } = q.query;
  if ("timestamp_ms" in start && !clamp) return true;
  return !mayFollow(q);
}

/** Why S2 answers 416 to the session, given the stream's tail; undefined when it does not. */
export function sessionStartRefusal(
  q: S2ReadQuery,
  tail: Position__Output | null,
): string | undefined {
  const tailSeq = BigInt(tail?.seq_num ?? 0);
  const { start, clamp } = q.query;
  const after = "the read session starts after the tail";
  let seq: bigint;
  if ("timestamp_ms" in start) {
    if (BigInt(start.timestamp_ms) <= BigInt(tail?.timestamp_ms ?? 0)) return undefined;
    if (!clamp) return after;
    seq = tailSeq;
  } else if ("tail_offset" in start) {
    const offset = BigInt(start.tail_offset);
    seq = tailSeq > offset ? tailSeq - offset : 0n;
  } else {
    seq = BigInt(start.seq_num);
    if (seq > tailSeq) {
      if (!clamp) return after;
      seq = tailSeq;
    }
  }
  if (seq !== tailSeq || mayFollow(q)) return undefined;
  return "the read session starts at the tail and is bounded without wait: it has nothing to read";
}
