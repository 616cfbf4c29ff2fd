// Position { seq_num, timestamp_ms } out to JSON, and the `{tail}` responses built from one.
import type { Position__Output } from "../../gen/nova/v1/Position.ts";
import { type ExactInt, type Int64Mode, writeExactInt } from "./integers.ts";

export interface PositionJson {
  seq_num: ExactInt;
  timestamp_ms: ExactInt;
}

/** An unset position (proto3 null) reads as its zero value, as proto3 defines it. */
export function positionToJson(
  p: Position__Output | null | undefined,
  mode: Int64Mode,
): PositionJson {
  return {
    seq_num: writeExactInt(p?.seq_num ?? "0", mode),
    timestamp_ms: writeExactInt(p?.timestamp_ms ?? "0", mode),
  };
}

/** CheckTailResponse and FenceResponse: `{ tail }`. */
/** CheckTail and Fence; `closed: true` only when the stream is closed. */
export function tailToJson(
  response: { tail: Position__Output | null; closed?: boolean },
  mode: Int64Mode,
): { tail: PositionJson; closed?: true } {
  const out: { tail: PositionJson; closed?: true } = { tail: positionToJson(response.tail, mode) };
  if (response.closed) out.closed = true;
  return out;
}
