// The event id of a multiplexed subscription: every stream's position, in the order the
// subscription names them, `0:<next>,<count>,<bytes>;1:...`. `next` is the seq_num the stream
// resumes at (known from the start, before any record: a stream that delivered nothing yet
// resumes where it began, not at the tail of the reconnect); `count` and `bytes` are what it
// delivered so far, counted across reconnects. One Last-Event-ID resumes every stream.
import type { FieldError } from "../errors/index.ts";
import { UINT64 } from "./integers.ts";
import type { Query } from "./query-params.ts";
import { resumeWith } from "./sse-event-id.ts";

export interface StreamPosition {
  /** The seq_num to deliver next. */
  next: bigint;
  /** Records delivered so far. */
  count: bigint;
  /** Content bytes delivered so far. */
  bytes: bigint;
}

const ENTRY = /^([0-9]{1,5}):([0-9]{1,20}),([0-9]{1,20}),([0-9]{1,20})$/;

export function formatMultiplexId(positions: readonly StreamPosition[]): string {
  return positions.map((p, i) => `${i}:${p.next},${p.count},${p.bytes}`).join(";");
}

/** Parses an id for a subscription of `streams` streams; `field` names where it came from. */
export function parseMultiplexId(
  text: string,
  streams: number,
  field: string,
  err: FieldError,
): StreamPosition[] {
  const shown = JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}...` : text);
  const entries = text.split(";");
  if (entries.length !== streams) {
    throw err(
      field,
      `has ${entries.length} entries, not one per stream of the ${streams} this subscription names (${shown}); resume with the id of an event of the same subscription`,
    );
  }
  return entries.map((entry, i) => {
    const m = ENTRY.exec(entry);
    if (!m || m[1] !== String(i)) {
      throw err(
        field,
        `entry ${i} must be "${i}:next,count,bytes" as sent in a multiplexed event's id, not ${shown}`,
      );
    }
    const [next, count, bytes] = [m[2], m[3], m[4]].map((s) => BigInt(s as string)) as [
      bigint,
      bigint,
      bigint,
    ];
    if (next > UINT64.max || count > UINT64.max || bytes > UINT64.max) {
      throw err(field, `entry ${i} holds a number past 2^64-1 (${shown})`);
    }
    return { next, count, bytes };
  });
}

/** The resume point of a multiplexed request, from the header or the query as for one stream. */
export function resumeMultiplexId(
  header: string | string[] | undefined,
  query: Query,
  streams: number,
): StreamPosition[] | undefined {
  return resumeWith(header, query, (text, field, err) =>
    parseMultiplexId(text, streams, field, err),
  );
}
