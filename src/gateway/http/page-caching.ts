// The caching rules of a unary page read (docs/caching.md). A page that can never change (it
// starts at a fixed position and stopped before the tail, or the stream is closed) may be kept by
// shared caches for --cache-max-age-s, by private ones only when the request carried a
// credential; every other page is `no-store`, so an append is never hidden by a stale copy. A
// kept page has a weak ETag over its records (its `tail` is the tail when it was read) and
// `If-None-Match` answers 304.
import { hash } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";

/**
 * What selects a page's representation besides its URL: an SSE request or a base64 read of the
 * same URL must never get a cached JSON page.
 */
export const PAGE_VARY = "accept, accept-encoding, nova-format, authorization";

/**
 * `current` Vary with `names` added, each once (case-insensitively) and after what is there: CORS
 * has said `Origin` by then, which a shared cache must keep varying on.
 */
export function varyWith(current: string | undefined, names: string): string {
  const all = `${current ?? ""},${names}`.split(",").map((name) => name.trim());
  if (all.includes("*")) return "*";
  const byLowerCase = new Map<string, string>();
  for (const name of all) {
    if (name !== "" && !byLowerCase.has(name.toLowerCase()))
      byLowerCase.set(name.toLowerCase(), name);
  }
  return [...byLowerCase.values()].join(", ");
}

/** Adds `names` to the reply's Vary (after what is there, each once). */
export function addVary(reply: FastifyReply, names: string): void {
  const vary = reply.getHeader("vary");
  reply.header("vary", varyWith(vary === undefined ? undefined : String(vary), names));
}

/** A page read's start and what it returned: the parts that decide whether it can change. */
export interface PageShape {
  start: Readonly<Record<string, string>>;
  records: readonly { seq_num: string | number | bigint }[];
  tail: { seq_num: string | number | bigint } | null;
  closed?: boolean;
}

/**
 * True when the same request can only ever get the same records: it starts at a seq_num or a
 * timestamp (a tail offset moves with the tail), returned records, and stopped short of the tail
 * (a limit cut it, so appends land after it) or the stream is closed.
 */
export function pageIsSettled(page: PageShape): boolean {
  if (page.start.seq_num === undefined && page.start.timestamp_ms === undefined) return false;
  const last = page.records.at(-1);
  if (last === undefined || page.tail === null) return false;
  return page.closed === true || BigInt(last.seq_num) + 1n < BigInt(page.tail.seq_num);
}

/** The Cache-Control of a page read. */
export function pageCacheControl(settled: boolean, credential: boolean, maxAgeS: number): string {
  if (!settled || maxAgeS === 0) return "no-store";
  return `${credential ? "private" : "public"}, max-age=${maxAgeS}`;
}

const TAIL_FIELD = Buffer.from('],"tail":');

/**
 * A weak validator over the page's records, as the JSON carries them (format and integer mode
 * included), without its `tail`, which moves while the records stay.
 */
export function pageEtag(json: Buffer): string {
  // Record strings are escaped, so the structural `],"tail":` is the last one.
  const end = json.lastIndexOf(TAIL_FIELD);
  return `W/"${hash("sha1", json.subarray(0, end < 0 ? json.length : end), "base64url")}"`;
}

/** RFC 9110 §13.1.2: If-None-Match compares weakly; `*` matches any current page. */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, "");
  const want = opaque(etag);
  return ifNoneMatch.split(",").some((tag) => tag.trim() === "*" || opaque(tag) === want);
}

/**
 * Sets a page read's caching headers and answers 304 when the client already holds it; returns
 * true when it answered.
 */
export function answerCached(
  req: FastifyRequest,
  reply: FastifyReply,
  json: Buffer,
  caching: { settled: boolean; credential: boolean; maxAgeS: number },
): boolean {
  const control = pageCacheControl(caching.settled, caching.credential, caching.maxAgeS);
  reply.header("cache-control", control);
  addVary(reply, PAGE_VARY);
  if (control === "no-store") return false;
  const etag = pageEtag(json);
  reply.header("etag", etag);
  if (!etagMatches(req.headers["if-none-match"], etag)) return false;
  reply.code(304).send();
  return true;
}
