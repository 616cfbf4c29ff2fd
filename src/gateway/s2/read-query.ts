// S2's read query (seq_num | timestamp | tail_offset, clamp, count, bytes, until, wait) as nova's
// ReadQuery, plus what only S2 has: `bytes` counts S2's metered bytes, and a session without
// `wait` ends once caught up when count, bytes or until bound it (S2's wait is 0 then).
import type { ReadQuery } from "../translate/index.ts";
import {
  INT64,
  type IntRange,
  type Query,
  queryParam,
  readExactInt,
  UINT64,
} from "../translate/index.ts";
import { s2Error } from "./errors.ts";

export interface S2ReadQuery {
  /** Nova's query: its `bytes` (content bytes, never more than metered) lets through a superset. */
  query: ReadQuery;
  /** 0 as S2 takes it: nothing is read (nova's query leaves it out, where 0 is no limit). */
  count?: bigint;
  /** The bound in S2's metered bytes. */
  bytes?: bigint;
  untilMs?: bigint;
  /** `wait` as given, in seconds. */
  wait?: number;
}

const WAIT: IntRange = { min: 0n, max: 60n };

const badQuery = (field: string, reason: string) => s2Error("bad_query", `${field}: ${reason}`);

function int(query: Query, name: string, range: IntRange = UINT64): bigint | undefined {
  const value = queryParam(query, name);
  return value === undefined ? undefined : readExactInt(value, range, name, badQuery);
}

export function parseS2ReadQuery(query: Query): S2ReadQuery {
  const seq = int(query, "seq_num");
  const ts = int(query, "timestamp");
  const offset = int(query, "tail_offset");
  const starts = [seq, ts, offset].filter((v) => v !== undefined).length;
  if (starts > 1) {
    throw s2Error("invalid", "only one of seq_num, timestamp, or tail_offset can be provided");
  }
  const clampText = queryParam(query, "clamp");
  if (clampText !== undefined && clampText !== "true" && clampText !== "false") {
    throw badQuery("clamp", `must be true or false, not ${JSON.stringify(clampText)}`);
  }
  const nova: ReadQuery = {
    // No start is S2's tail_offset=0: from the tail.
    start:
      seq !== undefined
        ? { seq_num: seq.toString() }
        : ts !== undefined
          ? { timestamp_ms: withinInt64(ts).toString() }
          : { tail_offset: (offset ?? 0n).toString() },
    clamp: clampText === "true",
    wait: 0,
    int64: "number",
  };
  const out: S2ReadQuery = { query: nova };
  const count = int(query, "count");
  if (count !== undefined) {
    out.count = count;
    if (count > 0n) nova.count = count;
  }
  const bytes = int(query, "bytes");
  if (bytes !== undefined) {
    out.bytes = bytes;
    if (bytes > 0n) nova.bytes = bytes;
  }
  const until = int(query, "until");
  if (ts !== undefined && until !== undefined && ts >= until) {
    throw s2Error("invalid", "start `timestamp` exceeds or equal to `until`");
  }
  // S2's times are any u64; nova's records are stamped within int64: a start past that is past
  // every record (the tail), and an `until` past it cuts none (the star is not asked to), though
  // it still bounds the read as S2 counts bounds (a session then ends once caught up).
  if (until !== undefined) {
    out.untilMs = until;
    if (until <= INT64.max) nova.until_ms = until.toString();
  }
  const wait = int(query, "wait", WAIT);
  if (wait !== undefined) {
    out.wait = Number(wait);
    nova.wait = out.wait;
  }
  return out;
}

/** Whether count, bytes or until bound the read (a session then ends once caught up). */
export function bounded(q: S2ReadQuery): boolean {
  return q.count !== undefined || q.bytes !== undefined || q.untilMs !== undefined;
}

/** S2's `may_follow`: the read may wait at the tail for records (unbounded, or a `wait`). */
export function mayFollow(q: S2ReadQuery): boolean {
  return !bounded(q) || (q.wait ?? 0) > 0;
}

/**
 * How long a caught-up session (SSE or s2s) stays for a record: S2's `wait` as asked; unasked,
 * 0 when count, bytes or until bound the read (it ends once caught up), else for ever
 * (undefined).
 */
export function idleEndMs(q: S2ReadQuery): number | undefined {
  if (q.wait !== undefined) return q.wait * 1000;
  return bounded(q) ? 0 : undefined;
}

/** S2's u64 time as nova's int64 one: past int64 is past every record nova keeps. */
function withinInt64(ms: bigint): bigint {
  if (ms > INT64.max) return INT64.max;
  return ms;
}
