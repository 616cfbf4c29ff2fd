// The Read / Subscribe query string: where to start, the bounds, and the proto ReadRequest fields.
import { PAGE_MAX_BYTES, PAGE_MAX_RECORDS } from "../../contract/wire-limits.ts";
import { badQuery, type FieldError } from "../errors/index.ts";
import {
  INT64,
  type Int64Mode,
  type IntRange,
  parseInt64Mode,
  readExactInt,
  UINT64,
} from "./integers.ts";
import { type Query, queryParam } from "./query-params.ts";

/** A unary read's page: at most this many records... */
/** ...and at most this many content bytes. */
export const MAX_WAIT_SECONDS = 60;

const WAIT: IntRange = { min: 0n, max: BigInt(MAX_WAIT_SECONDS) };

/** Where reading starts; none of the three means the tail. */
export type ReadStart =
  | { seq_num: string }
  | { timestamp_ms: string }
  | { tail_offset: string }
  | Record<string, never>;

export interface ReadQuery {
  start: ReadStart;
  /** Records to deliver; absent (or 0) means no limit. */
  count?: bigint;
  /** Content bytes to deliver; absent (or 0) means no limit. */
  bytes?: bigint;
  /** Exclusive upper bound on record timestamps. */
  until_ms?: string;
  clamp: boolean;
  /** Seconds to long-poll for records; 0 answers at once. */
  wait: number;
  int64: Int64Mode;
}

const STARTS = [
  ["seq_num", UINT64],
  ["timestamp_ms", INT64],
  ["tail_offset", UINT64],
] as const;

/** The read's query; `err` makes the error for a bad field (a multiplexed stream's own). */
export function parseReadQuery(query: Query, err: FieldError = badQuery): ReadQuery {
  const given = STARTS.filter(([name]) => queryParam(query, name) !== undefined);
  if (given.length > 1) {
    throw err(given.map(([name]) => name).join("|"), "give at most one start");
  }
  let start: ReadStart = {};
  const [first] = given;
  if (first !== undefined) {
    const [name, range] = first;
    start = { [name]: int(query, name, range, err)?.toString() } as ReadStart;
  }
  const q: ReadQuery = {
    start,
    clamp: bool(query, "clamp", err),
    wait: parseWait(query, err),
    int64: parseInt64Mode(query),
  };
  const count = int(query, "count", UINT64, err);
  if (count) q.count = count;
  const bytes = int(query, "bytes", UINT64, err);
  if (bytes) q.bytes = bytes;
  const until = int(query, "until_ms", INT64, err);
  if (until !== undefined) q.until_ms = until.toString();
  return q;
}

/** `wait`: seconds to wait for records, 0 (the default) to answer at once. */
export function parseWait(query: Query, err: FieldError = badQuery): number {
  return Number(int(query, "wait", WAIT, err) ?? 0n);
}

function int(query: Query, name: string, range: IntRange, err: FieldError): bigint | undefined {
  const value = queryParam(query, name);
  return value === undefined ? undefined : readExactInt(value, range, name, err);
}

function bool(query: Query, name: string, err: FieldError): boolean {
  const value = queryParam(query, name);
  if (value === undefined || value === "false") return false;
  if (value === "true") return true;
  throw err(name, `must be "true" or "false", not ${JSON.stringify(value)}`);
}

export interface ReadRequestFields {
  seq_num?: string;
  timestamp_ms?: string;
  tail_offset?: string;
  count: number;
  bytes: string;
  until_ms?: string;
  clamp: boolean;
}

/** A unary read's ReadRequest (without bucket and key): larger budgets are clamped to one page. */
export function readRequestFields(q: ReadQuery): ReadRequestFields {
  const fields: ReadRequestFields = {
    ...q.start,
    count: Number(clampTo(q.count, PAGE_MAX_RECORDS)),
    bytes: clampTo(q.bytes, PAGE_MAX_BYTES).toString(),
    clamp: q.clamp,
  };
  if (q.until_ms !== undefined) fields.until_ms = q.until_ms;
  return fields;
}

function clampTo(value: bigint | undefined, max: number): bigint {
  const cap = BigInt(max);
  return value === undefined || value > cap ? cap : value;
}
