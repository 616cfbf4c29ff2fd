// A read of settled history straight from object storage: plan, fetch (ahead of the reader),
// verify, decode, and yield batches shaped like the star's Read pages. A range the plan leaves
// out (below the first entry: trimmed records) and a chunk that cannot be served (missing,
// corrupt, expired, unreachable) are read through the star's Read instead, so the records
// yielded are exactly the star's, with no gap and no duplicate. The plan phase ends at
// vended_until; `next` says where the star takes over.
//
// A timestamp start: ReadPlan never vends a chunk holding a trimmed record (docs/readplan.md,
// rule 2), so the records of the vended chunks stamped before the start are exactly the ones
// to skip. Only when the first record at or after the start opens the first entry can earlier
// live records hide in the range the plan left out; one Read of one record then places it.
import { status } from "@grpc/grpc-js";
import { contentBytes } from "../../contract/codec/index.ts";
import type { PageRule } from "../../contract/page-rule.ts";
import { PAGE_MAX_BYTES, PAGE_MAX_RECORDS } from "../../contract/wire-limits.ts";
import type { Position__Output } from "../../gen/nova/v1/Position.ts";
import type { ReadResponse__Output } from "../../gen/nova/v1/ReadResponse.ts";
import type { Record__Output } from "../../gen/nova/v1/Record.ts";
import type { CallOptions, Upstream } from "../upstream/index.ts";
import { FleetError, StarCallError } from "../upstream/index.ts";
import type { ChunkLoader } from "./chunk-loader.ts";
import { ChunkFault } from "./faults.ts";
import type { ReadPlanMetrics } from "./metrics.ts";
import { pageEndsAt } from "./page-end.ts";
import { pageRead, trimPointShown } from "./page-read.ts";
import { BadPlanError, type PlanEntry } from "./plan-entry.ts";
import {
  fetchPlan,
  type Plan,
  type PlannedEntry,
  type PlanRequest,
  type PlanStart,
  plannedEntries,
} from "./plan-source.ts";
import { type Prefetched, prefetch } from "./prefetch.ts";
import { type Timings, timed } from "./timings.ts";
import type { VerifiedChunk } from "./verify-chunk.ts";

export interface ReadBatch {
  records: Record__Output[];
  tail: Position__Output;
}

export interface HistoryDeps {
  upstream: Pick<Upstream, "unary">;
  loader: ChunkLoader;
  metrics: ReadPlanMetrics;
  /** The most entries asked of one ReadPlan. */
  planLimit: number;
  /** Chunks fetched ahead of the one being read. */
  prefetch: number;
  now?: () => number;
}

export interface HistoryRead {
  address: { bucket: string; key: string };
  start: PlanStart;
  clamp: boolean;
  /** The read's bounds, over every record it yields. */
  limits: PageRule;
  /** One yielded batch's bounds (a star page's). */
  batchRecords: number;
  batchBytes: number;
  call: CallOptions;
  timings: Timings;
  /**
   * A bounded read that continues a paging client's previous page: plan and fetch as far
   * ahead as an unbounded read does, so the next pages find their chunks fetched.
   */
  readAhead?: boolean;
}

export interface HistoryEnd {
  /** False when no plan could be had: nothing was read, the whole read goes through the star. */
  planned: boolean;
  /** Where the star takes over: one past the last record yielded or skipped, else the start. */
  next: PlanStart;
  /** The read's bounds are met: nothing more belongs to it. */
  exhausted: boolean;
  /** The newest tail seen. */
  tail: Position__Output | undefined;
  /** A plan or Read said the stream is closed: its tail is final. */
  closed: boolean;
  /**
   * A Read showed the stream trimmed to here after the plan (records the plan named were gone):
   * records below it that were served from chunks fetched before are no longer the stream's.
   */
  trimmedTo?: bigint;
}

/** Star answers to ReadPlan that Read would give too (not a failure of the plan path). */
const ANSWERS = new Set<number>([
  status.NOT_FOUND,
  status.OUT_OF_RANGE,
  status.INVALID_ARGUMENT,
  status.PERMISSION_DENIED,
  status.UNAUTHENTICATED,
  status.FAILED_PRECONDITION,
]);

function newer(a: Position__Output | undefined, b: Position__Output | null | undefined) {
  if (!b) return a;
  if (!a) return b;
  return BigInt(b.seq_num) > BigInt(a.seq_num) ? b : a;
}

/** The first index whose timestamp is at or after `ts` (timestamps never decrease). */
function firstAtOrAfter(timestamps: BigInt64Array, ts: bigint): number {
  let lo = 0;
  let hi = timestamps.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((timestamps[mid] as bigint) < ts) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export async function* readHistory(
  deps: HistoryDeps,
  read: HistoryRead,
): AsyncGenerator<ReadBatch, HistoryEnd, undefined> {
  const { upstream, metrics } = deps;
  const { address, limits, timings, call } = read;
  const signal = call.signal ?? new AbortController().signal;
  const route = { ...call, ...address };
  const bounded = Number.isFinite(limits.maxRecords);
  const planReq: PlanRequest = {
    upstream,
    address,
    start: read.start,
    // A bounded page lies within one chunk or across two; a stream from it (or a page read
    // ahead of), as many as the reader fetches at once.
    limit: Math.min(bounded && !read.readAhead ? 2 : deps.prefetch + 1, deps.planLimit),
    maxLimit: deps.planLimit,
    ...(bounded ? { records: limits.maxRecords } : {}),
    clamp: read.clamp,
    call,
    timings,
    now: deps.now ?? Date.now,
  };

  const starRead = pageRead({
    upstream,
    address,
    call,
    clamp: read.clamp,
    untilMs: limits.untilMs,
    timings,
  });

  let first: Plan;
  try {
    first = await fetchPlan(planReq, read.start);
  } catch (err) {
    countPlanFailure(err);
    return { planned: false, next: read.start, exhausted: false, tail: undefined, closed: false };
  }

  let tail: Position__Output | undefined = first.tail;
  let closed = first.closed;
  let trimmedTo: bigint | undefined;
  /** The next seq_num to serve; unknown while a timestamp start has not been placed. */
  let seq: bigint | undefined = "seq_num" in read.start ? BigInt(read.start.seq_num) : undefined;
  /** Records stamped before a timestamp start are skipped (only ever before the first one kept). */
  const fromTs: bigint | undefined =
    "timestamp_ms" in read.start ? BigInt(read.start.timestamp_ms) : undefined;
  let exhausted = false;
  let batch: Record__Output[] = [];
  let batchBytes = 0;

  const flush = (): ReadBatch => {
    const last = batch[batch.length - 1] as Record__Output;
    const after = {
      seq_num: (BigInt(last.seq_num) + 1n).toString(),
      timestamp_ms: last.timestamp_ms,
    };
    const out = { records: batch, tail: newer(tail, after) as Position__Output };
    batch = [];
    batchBytes = 0;
    return out;
  };

  /**
   * Takes one record unless the read's bounds are met; false when they are. Taking the last
   * record the count allows ends the read too: the star would not look at the next one.
   */
  const take = (r: Record__Output, timestampMs: bigint, size: number): boolean => {
    if (!limits.admits(timestampMs, size)) {
      exhausted = true;
      return false;
    }
    limits.take(size);
    batch.push(r);
    batchBytes += size;
    if (limits.records >= limits.maxRecords) exhausted = true;
    return true;
  };

  /** Whether the batch has room for a record of `size` (the first always fits). */
  const batchFits = (size: number) =>
    batch.length === 0 ||
    (batch.length < read.batchRecords && batchBytes + size <= read.batchBytes);

  /**
   * A verified chunk's records from the cursor on. Undefined when served; the fault when the
   * chunk could not be had: its memory was lent to another chunk (the cache let it go) and
   * loading it again failed.
   */
  async function* serveChunk(
    loaded: VerifiedChunk,
    entry: PlanEntry,
  ): AsyncGenerator<ReadBatch, ChunkFault | undefined> {
    const { count, timestamps, firstSeqNum } = loaded;
    const chunkEnd = firstSeqNum + BigInt(count);
    let from = 0;
    if (seq !== undefined && seq > firstSeqNum) {
      from = seq >= chunkEnd ? count : Number(seq - firstSeqNum);
    }
    if (fromTs !== undefined) from = Math.max(from, firstAtOrAfter(timestamps, fromTs));
    // A bounded read copies out no more records than it may take.
    const to = Math.min(count, from + (limits.maxRecords - limits.records));
    let records = loaded.copyRecords(from, to);
    if (records === undefined) {
      try {
        records = (await deps.loader.load(entry, signal)).copyRecords(from, to);
      } catch (err) {
        if (err instanceof ChunkFault) return err;
        throw err;
      }
      if (records === undefined) {
        return new ChunkFault("unavailable", `chunk ${entry.cacheKey}: evicted as it was loaded`);
      }
    }
    let served = 0;
    for (let i = from; i < to; i++) {
      const r = records.record(i);
      const size = contentBytes(r);
      if (!batchFits(size)) yield flush();
      if (!take(r, timestamps[i] as bigint, size)) break;
      served++;
      if (exhausted) break;
    }
    metrics.records.inc({ source: "objstore" }, served);
    // Never back: a chunk wholly below the cursor (a trim the star told of moved it) serves none.
    if (exhausted) seq = firstSeqNum + BigInt(from + served);
    else if (seq === undefined || seq < chunkEnd) seq = chunkEnd;
    return undefined;
  }

  /**
   * The star's records from the cursor (or, unplaced, from the timestamp start) up to `end`,
   * through Read, page by page. `probe` asks for one record first, to place a timestamp.
   */
  async function* serveFromStar(end: bigint, probe = false): AsyncGenerator<ReadBatch> {
    let firstCall = probe;
    while (seq === undefined || seq < end) {
      const start: PlanStart = seq === undefined ? read.start : { seq_num: seq.toString() };
      const remaining = limits.remaining();
      const count = firstCall ? 1 : remaining.count;
      // The read's own budgets, not the star's page maximum, bound this Read.
      const own =
        count > 0 &&
        count <= PAGE_MAX_RECORDS &&
        remaining.bytes > 0 &&
        remaining.bytes <= PAGE_MAX_BYTES;
      let res: ReadResponse__Output;
      try {
        res = await starRead(start, count, remaining.bytes);
      } catch (err) {
        if (seq === undefined || !(await pageEndsAt(starRead, seq, limits, fromTs))) throw err;
        exhausted = true;
        return;
      }
      firstCall = false;
      const shown = trimPointShown(start, res);
      if (shown !== undefined && (trimmedTo === undefined || shown > trimmedTo)) trimmedTo = shown;
      tail = newer(tail, res.tail);
      closed ||= res.closed;
      let served = 0;
      let past = res.records.length === 0;
      /** Where the star's records go on past `end`: beyond it, those between were trimmed. */
      let after: bigint | undefined;
      for (const r of res.records) {
        const s = BigInt(r.seq_num);
        if (s >= end) {
          past = true;
          after = s;
          break;
        }
        seq = s + 1n;
        const ts = BigInt(r.timestamp_ms);
        if (fromTs !== undefined && ts < fromTs) continue;
        const size = contentBytes(r);
        if (!batchFits(size)) yield flush();
        if (!take(r, ts, size)) {
          seq = s;
          break;
        }
        served++;
        if (exhausted) break;
      }
      metrics.records.inc({ source: "star" }, served);
      // Read answers nothing only past its last record: with records known to follow (the
      // plan's), that is the time bound, which ends the read here as it would the star's.
      if (res.records.length === 0 && limits.untilMs !== undefined) exhausted = true;
      // Short of the read's own budgets, below `end`: the next record is past the time bound
      // or does not fit. Another Read would take it as its first, and look further than the
      // star's one Read would.
      const short = res.records.length > 0 && res.records.length < count;
      if (own && short && !past && seq !== undefined && seq < end) exhausted = true;
      if (exhausted) return;
      // The star has nothing more below `end`: trimmed meanwhile. Its first record past it says
      // where the stream goes on: the plan's chunks below that hold trimmed records now.
      if (past) seq = after !== undefined && after > end ? after : end;
    }
  }

  const cleanBefore = chunkBeforeIsClean(first);

  const entries = prefetch<PlannedEntry, VerifiedChunk>(
    plannedEntries(planReq, first),
    (p, s) => deps.loader.load(p.entry, s),
    deps.prefetch,
    signal,
  );
  try {
    while (!exhausted) {
      const planBefore = timings.planMs;
      const t0 = performance.now();
      let step: IteratorResult<Prefetched<PlannedEntry, VerifiedChunk>, void>;
      try {
        step = await entries.next();
      } catch (err) {
        // A re-plan failed: the star takes over from the cursor.
        countPlanFailure(err);
        break;
      } finally {
        timings.s3Ms += Math.max(0, performance.now() - t0 - (timings.planMs - planBefore));
      }
      if (step.done) break;
      const { entry: planned, result } = step.value;
      const { entry, end } = planned;
      tail = newer(tail, planned.tail);
      closed ||= planned.closed;

      // Records between the cursor and this chunk were not vended: the star has them, if any.
      if (seq !== undefined && entry.firstSeqNum > seq) {
        yield* serveFromStar(entry.firstSeqNum);
        if (exhausted) break;
      }
      if (result.ok) {
        const chunk = result.value;
        // An unplaced timestamp start whose first record opens the plan: live records before
        // the chunk may be stamped at or after it too, unless the chunk before holds no
        // trimmed record (else the plan would have begun there).
        if (
          seq === undefined &&
          chunk.firstSeqNum > 0n &&
          firstAtOrAfter(chunk.timestamps, fromTs as bigint) === 0 &&
          !(await cleanBefore)
        ) {
          yield* serveFromStar(chunk.firstSeqNum, true);
          if (exhausted) break;
        }
        const fault = yield* serveChunk(chunk, entry);
        if (fault === undefined) continue;
        metrics.fallbacks.inc({ reason: fault.reason });
        if (end === undefined) break;
        yield* serveFromStar(end);
        continue;
      }
      if (!(result.error instanceof ChunkFault)) throw result.error;
      metrics.fallbacks.inc({ reason: result.error.reason });
      // The last chunk, with no known end: the star takes over from the cursor.
      if (end === undefined) break;
      yield* serveFromStar(end);
    }
  } finally {
    await entries.return();
  }
  if (batch.length > 0) yield flush();
  const next: PlanStart = seq === undefined ? read.start : { seq_num: seq.toString() };
  return { planned: true, next, exhausted, tail, closed, ...(trimmedTo ? { trimmedTo } : {}) };

  /**
   * For a timestamp start at or before the plan's first record: whether the chunk just before
   * holds no trimmed record, which a plan from the seq_num before the first entry tells (it
   * vends that chunk only then). Asked at once, while the first chunk is fetched; false when
   * unknown or not needed.
   */
  function chunkBeforeIsClean(plan: Plan): Promise<boolean> {
    const head = plan.entries[0];
    if (
      fromTs === undefined ||
      head === undefined ||
      head.firstSeqNum === 0n ||
      head.minTimestampMs < fromTs
    ) {
      return Promise.resolve(false);
    }
    const before = { ...address, seq_num: (head.firstSeqNum - 1n).toString(), limit: 1 };
    return timed(timings, "planMs", () =>
      upstream.unary("ReadPlan", { ...before, clamp: false }, route),
    ).then(
      (res) => {
        const e = res.entries[0];
        return e !== undefined && BigInt(e.first_seq_num) < head.firstSeqNum;
      },
      () => false,
    );
  }

  function countPlanFailure(err: unknown): void {
    signal.throwIfAborted();
    if (err instanceof StarCallError && ANSWERS.has(err.code)) return;
    if (
      !(err instanceof StarCallError || err instanceof FleetError || err instanceof BadPlanError)
    ) {
      throw err;
    }
    metrics.fallbacks.inc({ reason: "plan_failed" });
  }
}
