// Durable Streams offsets (docs/durable-streams.md, "Offsets"): `<seq>_<within>`, the seq_num of
// the next record to read as 16 lowercase hex digits (uint64's widest), then 16 hex digits for
// a position within that record, always 0 today (reserved for reads cut inside a record). Fixed
// width, so one stream's offsets sort as their positions do; the shape of the protocol's
// reference server, so `0000000000000000_0000000000000000` is the start here too. "-1" (the
// start) and "now" (the tail) are the protocol's sentinels; a server never mints them.
import { badQuery } from "../errors/index.ts";

const HEX = 16;
const WITHIN_ZERO = "0".repeat(HEX);
const OFFSET = /^([0-9a-f]{16})_([0-9a-f]{16})$/;

export type OffsetStart = { at: "start" } | { at: "now" } | { at: "seq"; seq: bigint };

export function offsetOf(seq: bigint | string): string {
  return `${BigInt(seq).toString(16).padStart(HEX, "0")}_${WITHIN_ZERO}`;
}

/** A read's `offset`: absent or "-1" is the start. Anything but a minted offset is a 400. */
export function parseOffset(text: string | undefined, field = "offset"): OffsetStart {
  if (text === undefined || text === "-1") return { at: "start" };
  if (text === "now") return { at: "now" };
  const m = OFFSET.exec(text);
  if (!m || m[2] !== WITHIN_ZERO) {
    throw badQuery(
      field,
      `${JSON.stringify(text)} is not an offset: send "-1", "now" or a Stream-Next-Offset this server returned`,
    );
  }
  return { at: "seq", seq: BigInt(`0x${m[1]}`) };
}
