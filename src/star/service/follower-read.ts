// Read on a member that does not lead the stream (docs/fleet.md): the settled records come from
// the chunks in storage, the rest of the page from the leader's Read. Starts that need the tail
// (the tail, tail_offset), and timestamps no settled record reaches, are the leader's to
// resolve. When the leader does not answer, storage serves everything it acked: a fresh listing
// of the settled chunks, then the records still in its log objects (stopped-leader.ts), or the
// read fails UNAVAILABLE naming the damage that keeps it from them.

import type { DecodedChunkRecord } from "../../contract/codec/index.ts";
import { contentBytes } from "../../contract/codec/index.ts";
import { PageRule } from "../../contract/page-rule.ts";
import type { Position__Output } from "../../gen/nova/v1/Position.ts";
import type { ReadRequest__Output } from "../../gen/nova/v1/ReadRequest.ts";
import type { ReadResponse } from "../../gen/nova/v1/ReadResponse.ts";
import type { Record__Output } from "../../gen/nova/v1/Record.ts";
import type { Stream__Output } from "../../gen/nova/v1/Stream.ts";
import type { StarContext } from "../context.ts";
import { outOfRange } from "../errors.ts";
import { callMember, isForwarded } from "../fleet/forward.ts";
import type { Member } from "../fleet/members.ts";
import { notOwner } from "../fleet/ownership.ts";
import { clampLimit } from "../limits.ts";
import { type Extent, type ReadBounds, readPage, seqForTimestamp } from "../stream/chunk-reads.ts";
import { type FollowerView, withRetry } from "../stream/follower-view.ts";
import type { Pos } from "../stream/stream-log.ts";
import { aboveTrim, resolveStart } from "./read-start.ts";
import { leaderUnreachable, StoppedLeaderLog } from "./stopped-leader.ts";
import { position, record } from "./wire.ts";

type WireRecord = ReturnType<typeof record> | Record__Output;

/** A page being filled by the leader's rule: at least one record, then within both limits. */
class Page {
  readonly records: WireRecord[] = [];
  readonly bounds: ReadBounds;
  // until_ms is applied by the readers that fill the page (chunks, and the leader's Read).
  readonly #rule: PageRule;

  constructor(bounds: ReadBounds) {
    this.bounds = bounds;
    this.#rule = new PageRule(bounds.maxRecords, bounds.maxBytes);
  }

  /** Takes records in order while they fit; false once one did not (the page is full). */
  take(records: Iterable<DecodedChunkRecord | Record__Output>): boolean {
    for (const r of records) {
      const size = contentBytes(r);
      if (this.full || !this.#rule.fits(size)) return false;
      this.records.push("seqNum" in r ? record(r) : r);
      this.#rule.take(size);
    }
    return !this.full;
  }

  get full(): boolean {
    return this.#rule.full;
  }

  /** Bounds for the rest of the page, as a Read asks for them. */
  rest(): ReadBounds {
    const { count, bytes } = this.#rule.remaining();
    return { ...this.bounds, maxRecords: count, maxBytes: bytes };
  }
}

export async function followerRead(
  ctx: StarContext,
  stream: Stream__Output,
  req: ReadRequest__Output,
): Promise<ReadResponse> {
  const leader = ctx.fleet.leaderOf(req.bucket, req.key);
  // A member that thinks this star leads: their fleet lists disagree; do not pass it back.
  if (isForwarded()) throw notOwner(leader, `stream ${JSON.stringify(req.key)}`);
  const view = ctx.followers.view(stream.stream_id);
  const page = new Page({
    maxRecords: clampLimit(req.count, ctx.limits.readPageRecords),
    maxBytes: clampLimit(Number(req.bytes), ctx.limits.readPageBytes),
    untilMs: req.until_ms === undefined ? undefined : BigInt(req.until_ms),
  });
  const untilMs = req.until_ms;

  let next: bigint;
  if (req.start === "seq_num") {
    next = BigInt(req.seq_num ?? "0");
  } else if (req.start === "timestamp_ms") {
    const extent = await settledExtent(view, 0n);
    next = await seqForTimestamp(ctx.chunks, extent, BigInt(req.timestamp_ms ?? "0"));
    if (next >= extent.tail) return leaderOrStorage(ctx, leader, view, req, page);
  } else {
    return leaderOrStorage(ctx, leader, view, req, page);
  }

  const stored = await fromStorage(ctx, view, next, page);
  next = stored.next;
  if (page.full || (page.records.length > 0 && !stored.reachedEnd)) {
    // Stopped by a limit or until_ms inside what is settled: the leader has nothing to add.
    return { records: page.records, tail: position(view.knownTail) };
  }
  const rest = { bucket: req.bucket, key: req.key, seq_num: next.toString(), clamp: req.clamp };
  const from = next;
  return leaderOrStorage(ctx, leader, view, { ...rest, until_ms: untilMs }, page, async () => from);
}

/**
 * The leader's Read of the rest of the page; when the leader does not answer (down, restarting),
 * storage's: everything it acknowledged is there, settled or in its log objects, and the start
 * is resolved against that (by default as the leader would resolve the request's).
 */
async function leaderOrStorage(
  ctx: StarContext,
  leader: Member,
  view: FollowerView,
  req: Parameters<typeof callMember<"Read">>[3],
  page: Page,
  startOf: (log: StoppedLeaderLog) => Promise<bigint> = (log) =>
    resolveStart(log, startRequest(req)),
): Promise<ReadResponse> {
  try {
    return await leaderRead(ctx, leader, view, req, page);
  } catch (err) {
    if (!leaderUnreachable(err)) throw err;
    const log = await StoppedLeaderLog.read(ctx, leader, view);
    const { extent, tail } = log;
    const next = await startOf(log);
    if (page.records.length === 0 && next > extent.tail) {
      log.reached(next);
      if (!req.clamp) throw outOfRange(extent.tail, tail.timestampMs);
    } else {
      const from = aboveTrim(next, extent.trim);
      page.take(await log.page(from, page.rest()));
      const last = page.records.at(-1);
      const seq = last && BigInt(last.seq_num as string);
      log.reached(seq !== undefined && seq >= from ? seq + 1n : from);
    }
    return { records: page.records, tail: position(tail) };
  }
}

/** A Read request's start as resolveStart takes it. */
function startRequest(req: Parameters<typeof callMember<"Read">>[3]) {
  return {
    ...(req.start === undefined ? {} : { start: req.start }),
    seq_num: req.seq_num === undefined ? undefined : String(req.seq_num),
    timestamp_ms: req.timestamp_ms === undefined ? undefined : String(req.timestamp_ms),
    tail_offset: req.tail_offset === undefined ? undefined : String(req.tail_offset),
    clamp: req.clamp === true,
  };
}

/**
 * Fills the page from the settled chunks from `next`: the next seq_num to read, and whether
 * the page took everything settled (else a limit or until_ms stopped it).
 */
async function fromStorage(
  ctx: StarContext,
  view: FollowerView,
  next: bigint,
  page: Page,
): Promise<{ next: bigint; reachedEnd: boolean }> {
  const extent = await settledExtent(view, next);
  const from = aboveTrim(next, extent.trim);
  if (from >= extent.tail) return { next: from, reachedEnd: true };
  const records = await withRetry(view, extent, (e) => readPage(ctx.chunks, e, from, page.rest()));
  page.take(records);
  const last = page.records[page.records.length - 1];
  const after = last ? BigInt(last.seq_num as string) + 1n : from;
  return { next: after, reachedEnd: after >= extent.tail };
}

/**
 * The settled extent, listed again first when the leader has reported records past the listing
 * that `next` wants (they are durable, so a listing finds them).
 */
async function settledExtent(view: FollowerView, next: bigint): Promise<Extent> {
  await view.ready();
  if (next >= view.listedEnd.seqNum && next < view.knownTail.seqNum) await view.refresh();
  return view.extent();
}

async function leaderRead(
  ctx: StarContext,
  leader: Member,
  view: FollowerView,
  request: Parameters<typeof callMember<"Read">>[3],
  page: Page,
): Promise<ReadResponse> {
  const rest = page.rest();
  const res = await callMember(ctx, leader, "Read", {
    ...request,
    count: rest.maxRecords,
    bytes: page.records.length === 0 ? page.bounds.maxBytes : rest.maxBytes,
  });
  if (res.tail) view.learn(pos(res.tail));
  const before = page.records.length;
  page.take(res.records);
  // The leader's `closed` says its page reached the tail: so does this one only if it took all.
  const tookAll = page.records.length - before === res.records.length;
  return { records: page.records, tail: res.tail, closed: res.closed && tookAll };
}

export const pos = (p: Position__Output): Pos => ({
  seqNum: BigInt(p.seq_num ?? "0"),
  timestampMs: BigInt(p.timestamp_ms ?? "0"),
});
