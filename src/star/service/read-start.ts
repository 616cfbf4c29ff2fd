// Resolving where a read or subscription starts: a seq_num, a timestamp (by search over chunk
// timestamps), an offset back from the tail, or the tail itself.
import { outOfRange } from "../errors.ts";
import type { Pos } from "../stream/stream-log.ts";

export interface StartRequest {
  start?: "seq_num" | "timestamp_ms" | "tail_offset";
  seq_num?: string;
  timestamp_ms?: string;
  tail_offset?: string;
  clamp: boolean;
}

/** What a start is resolved against: a leader's log, or what storage holds of a stopped one's. */
export interface StartSource {
  readonly tail: Pos;
  readonly trimPoint: bigint;
  seqForTimestamp(ts: bigint): Promise<bigint>;
}

/** A start beyond the tail is OUT_OF_RANGE unless clamped (then the tail). */
function withinTail(tail: Pos, start: bigint, clamp: boolean): bigint {
  if (start <= tail.seqNum) return start;
  if (clamp) return tail.seqNum;
  throw outOfRange(tail.seqNum, tail.timestampMs);
}

/** A read's start, raised to the trim point: what lies below it is gone. */
export function aboveTrim(start: bigint, trimPoint: bigint): bigint {
  return start < trimPoint ? trimPoint : start;
}

export async function resolveStart(log: StartSource, req: StartRequest): Promise<bigint> {
  const tail = log.tail.seqNum;
  switch (req.start) {
    case "seq_num":
      return withinTail(log.tail, BigInt(req.seq_num ?? "0"), req.clamp);
    case "timestamp_ms":
      return log.seqForTimestamp(BigInt(req.timestamp_ms ?? "0"));
    case "tail_offset": {
      const back = BigInt(req.tail_offset ?? "0");
      const start = back >= tail ? 0n : tail - back;
      return aboveTrim(start, log.trimPoint);
    }
    default:
      return tail;
  }
}
