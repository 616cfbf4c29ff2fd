// Durable Streams offsets (docs/durable-streams.md, "Offsets"): the seq_num of the next record
// to read, as 20 decimal digits (uint64's widest), so that one stream's offsets sort as its
// positions do. "-1" (the start) and "now" (the tail) are the protocol's sentinels; a server
// never mints them.
import { badQuery } from "../errors/index.ts";

const DIGITS = 20;
const MAX_SEQ = 2n ** 64n - 1n;

export type OffsetStart = { at: "start" } | { at: "now" } | { at: "seq"; seq: bigint };

export function offsetOf(seq: bigint | string): string {
  return BigInt(seq).toString().padStart(DIGITS, "0");
}

/** A read's `offset`: absent or "-1" is the start. Anything but a minted offset is a 400. */
export function parseOffset(text: string | undefined, field = "offset"): OffsetStart {
  if (text === undefined || text === "-1") return { at: "start" };
  if (text === "now") return { at: "now" };
  if (text.length !== DIGITS || !/^\d+$/.test(text)) {
    throw badQuery(
      field,
      `${JSON.stringify(text)} is not an offset: send "-1", "now" or a Stream-Next-Offset this server returned`,
    );
  }
  const seq = BigInt(text);
  if (seq > MAX_SEQ) throw badQuery(field, `${text} is beyond any stream's end`);
  return { at: "seq", seq };
}
