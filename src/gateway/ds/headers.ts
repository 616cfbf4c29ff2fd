// The Durable Streams request headers, parsed: Stream-Closed, Stream-TTL, Stream-Expires-At
// and the idempotent producer's three. Each malformed value is a 400 naming the header.
import type { IncomingHttpHeaders } from "node:http";
import { MAX_WRITER_SEQ_BYTES } from "../../contract/wire-limits.ts";
import { badHeader } from "../errors/index.ts";
import { producerIdFrom, singleHeader } from "../translate/index.ts";

/** The protocol's ceiling for producer epochs and seqs, for JavaScript clients. */
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
/** A decimal without sign, leading zeros, point or exponent. */
export const DECIMAL = /^(0|[1-9][0-9]*)$/;
/** RFC 3339 date-time; the instant is kept to the millisecond. */
const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;

/**
 * An RFC 3339 time in ms since the epoch; NaN when it is not one, a date that does not exist
 * included (Date.parse rolls February 30 over into March).
 */
function rfc3339Ms(text: string): number {
  const m = RFC3339.exec(text);
  if (!m) return Number.NaN;
  const [year, month, day, hour, minute, second, offHour, offMinute] = [1, 2, 3, 4, 5, 6, 8, 9].map(
    (i) => Number(m[i] ?? 0),
  ) as [number, number, number, number, number, number, number, number];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const valid =
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysInMonth &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 59 &&
    offHour <= 23 &&
    offMinute <= 59;
  return valid ? Date.parse(text) : Number.NaN;
}

function one(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v.join(", ") : v;
}

/** Present only when exactly "true" (any case); any other value is as if absent. */
export function closedHeader(headers: IncomingHttpHeaders): boolean {
  return one(headers, "stream-closed")?.toLowerCase() === "true";
}

export interface Expiry {
  /** Sliding: idle this long, ms ("0": none). */
  idleMs: string;
  /** Fixed instant, ms since the epoch ("0": none). */
  atMs: string;
}

/** Stream-TTL (seconds) or Stream-Expires-At (RFC 3339); both at once is a 400. */
export function expiryHeaders(headers: IncomingHttpHeaders): Expiry {
  const ttl = one(headers, "stream-ttl");
  const at = one(headers, "stream-expires-at");
  if (ttl !== undefined && at !== undefined) {
    throw badHeader("stream-ttl", "send Stream-TTL or Stream-Expires-At, not both");
  }
  if (ttl !== undefined) {
    if (!DECIMAL.test(ttl) || BigInt(ttl) > MAX_SAFE / 1000n) {
      throw badHeader("stream-ttl", `${JSON.stringify(ttl)} is not a whole number of seconds`);
    }
    return { idleMs: (BigInt(ttl) * 1000n).toString(), atMs: "0" };
  }
  if (at !== undefined) {
    const ms = rfc3339Ms(at);
    if (!Number.isFinite(ms) || ms <= 0) {
      throw badHeader("stream-expires-at", `${JSON.stringify(at)} is not an RFC 3339 timestamp`);
    }
    return { idleMs: "0", atMs: String(ms) };
  }
  return { idleMs: "0", atMs: "0" };
}

/**
 * Stream-Seq: 1 to 1024 bytes, compared bytewise with the stream's last (per stream); given
 * twice, a 400 (`rawHeaders`: the request's as sent), not the two joined.
 */
export function streamSeqHeader(
  headers: IncomingHttpHeaders,
  rawHeaders: readonly string[],
): string | undefined {
  const seq = singleHeader(headers, rawHeaders, "stream-seq");
  if (seq === undefined) return undefined;
  const bytes = Buffer.byteLength(seq);
  if (bytes === 0 || bytes > MAX_WRITER_SEQ_BYTES) {
    throw badHeader("stream-seq", `must be 1 to ${MAX_WRITER_SEQ_BYTES} bytes`);
  }
  return seq;
}

export interface ProducerHeaders {
  id: string;
  epoch: bigint;
  seq: bigint;
}

/** Producer-Id, -Epoch and -Seq: all three or none, each once (`rawHeaders` as for Stream-Seq). */
export function producerHeaders(
  headers: IncomingHttpHeaders,
  rawHeaders: readonly string[],
): ProducerHeaders | undefined {
  const id = singleHeader(headers, rawHeaders, "producer-id");
  const epoch = singleHeader(headers, rawHeaders, "producer-epoch");
  const seq = singleHeader(headers, rawHeaders, "producer-seq");
  if (id === undefined && epoch === undefined && seq === undefined) return undefined;
  if (id === undefined || epoch === undefined || seq === undefined) {
    throw badHeader("producer-id", "Producer-Id, Producer-Epoch and Producer-Seq go together");
  }
  return {
    id: producerIdFrom(id, "producer-id"),
    epoch: safeInteger(epoch, "producer-epoch"),
    seq: safeInteger(seq, "producer-seq"),
  };
}

function safeInteger(text: string, name: string): bigint {
  if (!DECIMAL.test(text) || BigInt(text) > MAX_SAFE) {
    throw badHeader(name, `${JSON.stringify(text)} is not an integer from 0 to 2^53-1`);
  }
  return BigInt(text);
}
