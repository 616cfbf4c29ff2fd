// A read's bounds (`count`, `bytes`, `until_ms`) applied to the records a subscription brings,
// batch by batch, counting what was delivered across the reconnects of one SSE session (the
// tally rides in the event id). Pure: no I/O.

export interface Bounds {
  /** Records to deliver in the whole session; undefined: no limit. */
  count?: bigint;
  /** Content bytes to deliver in the whole session; undefined: no limit. */
  bytes?: bigint;
  /** Exclusive upper bound on record timestamps. */
  untilMs?: bigint;
}

/** What the session delivered so far. */
export interface Tally {
  count: bigint;
  bytes: bigint;
}

/** Shared by every lane that has delivered nothing yet: tallies are replaced, never changed. */
export const ZERO_TALLY: Tally = Object.freeze({ count: 0n, bytes: 0n });

export interface BoundedRecord {
  timestamp_ms: string;
}

export interface Cut {
  /** How many of the batch's leading records to deliver. */
  take: number;
  /** The tally after delivering them. */
  tally: Tally;
  /** The bounds are met: nothing after the taken records is to be delivered. */
  done: boolean;
}

/** Whether a count or bytes bound is already met by the tally (a resume can start there). */
export function boundsMet(bounds: Bounds, tally: Tally): boolean {
  return (
    (bounds.count !== undefined && tally.count >= bounds.count) ||
    (bounds.bytes !== undefined && tally.bytes >= bounds.bytes)
  );
}

/**
 * The leading records of a batch that fit the bounds. A record at or past `untilMs` ends the
 * session; one that would take the bytes past their bound ends it too, except the session's
 * first record, which is always delivered (as a unary read always answers at least one record),
 * so a bound smaller than one record still makes progress.
 */
export function cutBatch<R extends BoundedRecord>(
  records: readonly R[],
  sizeOf: (record: R) => number,
  bounds: Bounds,
  tally: Tally,
): Cut {
  let { count, bytes } = tally;
  let take = 0;
  if (boundsMet(bounds, tally)) return { take, tally, done: true };
  for (const record of records) {
    if (bounds.untilMs !== undefined && BigInt(record.timestamp_ms) >= bounds.untilMs) {
      return { take, tally: { count, bytes }, done: true };
    }
    const size = BigInt(sizeOf(record));
    if (bounds.bytes !== undefined && count > 0n && bytes + size > bounds.bytes) {
      return { take, tally: { count, bytes }, done: true };
    }
    take++;
    count++;
    bytes += size;
    if (boundsMet(bounds, { count, bytes })) return { take, tally: { count, bytes }, done: true };
  }
  return { take, tally: { count, bytes }, done: false };
}

/** A whole batch as the bounds see it: made once, for every subscriber it is delivered to. */
export interface BatchTotals {
  count: bigint;
  bytes: bigint;
  /** The latest record timestamp, or -1 for no records. */
  maxTimestampMs: bigint;
}

export function batchTotals<R extends BoundedRecord>(
  records: readonly R[],
  sizeOf: (record: R) => number,
): BatchTotals {
  let bytes = 0;
  let maxTimestampMs = -1n;
  for (const record of records) {
    bytes += sizeOf(record);
    const ts = BigInt(record.timestamp_ms);
    if (ts > maxTimestampMs) maxTimestampMs = ts;
  }
  return { count: BigInt(records.length), bytes: BigInt(bytes), maxTimestampMs };
}

/** The tally after a whole batch of `totals`. */
export function addTotals(tally: Tally, totals: BatchTotals): Tally {
  return { count: tally.count + totals.count, bytes: tally.bytes + totals.bytes };
}

/**
 * Whether the bounds take all of a batch of `totals` and stay open, reaching the tally `after`:
 * what cutBatch answers with every record taken and not done. A fan-out's fast path: no work
 * per record.
 */
export function staysOpen(totals: BatchTotals, bounds: Bounds, after: Tally): boolean {
  if (bounds.count !== undefined && after.count >= bounds.count) return false;
  if (bounds.bytes !== undefined && after.bytes >= bounds.bytes) return false;
  return bounds.untilMs === undefined || totals.maxTimestampMs < bounds.untilMs;
}
