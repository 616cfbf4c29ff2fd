// S2's bounds on a read session (count, bytes in S2's metered bytes, until), applied batch by
// batch to what the session delivered so far. Strict as S2's ReadLimit is: a record that would
// take the bytes past their bound is not delivered, however early it comes. Pure: no I/O.
// The rule of both of S2's read sessions, SSE and s2s.
import type { Record__Output } from "../../gen/nova/v1/Record.ts";
import { meteredBytes } from "./metering.ts";

/** A read session's bounds, what is left of them on a resumed one. */
export interface S2SessionBounds {
  count?: bigint;
  bytes?: bigint;
  untilMs?: bigint;
}

/** What a session delivered so far: records and their metered bytes. */
export interface S2Tally {
  count: bigint;
  bytes: bigint;
}

export interface S2Cut {
  /** How many of the batch's leading records to deliver. */
  take: number;
  tally: S2Tally;
  /** The bounds are met: nothing after the taken records is to be delivered. */
  done: boolean;
}

export function cutToSessionBounds(
  records: readonly Record__Output[],
  bounds: S2SessionBounds,
  tally: S2Tally,
): S2Cut {
  let { count, bytes } = tally;
  let take = 0;
  const met = () =>
    (bounds.count !== undefined && count >= bounds.count) ||
    (bounds.bytes !== undefined && bytes >= bounds.bytes);
  if (met()) return { take, tally, done: true };
  for (const r of records) {
    if (bounds.untilMs !== undefined && BigInt(r.timestamp_ms) >= bounds.untilMs) {
      return { take, tally: { count, bytes }, done: true };
    }
    const size = BigInt(meteredBytes(r));
    if (bounds.bytes !== undefined && bytes + size > bounds.bytes) {
      return { take, tally: { count, bytes }, done: true };
    }
    take++;
    count++;
    bytes += size;
    if (met()) return { take, tally: { count, bytes }, done: true };
  }
  return { take, tally: { count, bytes }, done: false };
}
