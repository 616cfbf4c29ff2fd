// The gateway's reads: a read that starts at a seq_num or a timestamp goes through ReadPlan and
// object storage for the settled range and through the star's Read for the rest; anything
// else (a tail start, a long-poll, the object-storage path turned off) goes through Read.
// Either way the page is the one the star's Read would answer.

import { contentBytes } from "../../contract/codec/index.ts";
import { PageRule } from "../../contract/page-rule.ts";
import { PAGE_MAX_BYTES, PAGE_MAX_RECORDS } from "../../contract/wire-limits.ts";
import type { Position__Output } from "../../gen/nova/v1/Position.ts";
import type { ReadResponse__Output } from "../../gen/nova/v1/ReadResponse.ts";
import type { Record__Output } from "../../gen/nova/v1/Record.ts";
import { type ReadQuery, readRequestFields } from "../translate/index.ts";
import type { CallOptions, Upstream } from "../upstream/index.ts";
import { createChunkLoader } from "./chunk-loader.ts";
import {
  type HistoryDeps,
  type HistoryEnd,
  type ReadBatch,
  readHistory,
} from "./history-reader.ts";
import type { ReadPlanMetrics } from "./metrics.ts";
import { pageEndsAt } from "./page-end.ts";
import { pageRead, trimPointShown } from "./page-read.ts";
import { PageTrail } from "./page-trail.ts";
import { type PlanStart, planStart } from "./plan-source.ts";
import { createS3Fetcher, type S3Settings } from "./s3-fetcher.ts";
import { newTimings, type Timings, timed } from "./timings.ts";
import { createUrlFetcher } from "./url-fetcher.ts";

/** Streams whose last page end is remembered, to read ahead of clients paging through them. */
const PAGE_TRAIL_STREAMS = 10_000;

export interface ReadPlanSettings {
  /** For raw `{storage_bucket, object_key}` entries; without it they fall back to the star. */
  s3?: S3Settings;
  /** Verified chunks kept for later readers. */
  cacheBytes: number;
  /** Chunks being fetched at once, over every reader. */
  loadingBytes: number;
  /** Chunks fetched ahead of the reader. */
  prefetch: number;
  /** Connections per object-storage origin. */
  connections: number;
  /** Connect, response-header and idle-body timeout of a chunk fetch. */
  timeoutMs: number;
  /**
   * The most entries asked of one ReadPlan. A read's first plan asks for what it fetches at
   * once (a page: 2; a subscription: prefetch + 1), each re-plan for twice as many.
   */
  planLimit: number;
}

export interface PageResult {
  /** `closed`: the stream is closed and this page ends at its tail. */
  response: { records: Record__Output[]; tail: Position__Output | null; closed?: boolean };
  timings: Timings;
}

export interface HistorySource {
  /**
   * Settled history from `start` as batches (a star page each at most) through object
   * storage; the end says where Read or Subscribe take over, with no gap and no duplicate.
   */
  read(
    address: { bucket: string; key: string },
    start: PlanStart,
    limits: PageRule,
    call: CallOptions,
    timings?: Timings,
  ): AsyncGenerator<ReadBatch, HistoryEnd, undefined>;
}

export interface ReadService {
  /** One unary page, as the star's Read would answer it, and where the time went. */
  page(
    address: { bucket: string; key: string },
    query: ReadQuery,
    call: CallOptions,
  ): Promise<PageResult>;
  /** Absent when the object-storage path is off. */
  readonly history: HistorySource | undefined;
  close(): Promise<void>;
}

export function createReadService(opts: {
  upstream: Pick<Upstream, "unary">;
  metrics: ReadPlanMetrics;
  /** Absent: every read goes through the star. */
  readplan?: ReadPlanSettings;
}): ReadService {
  const { upstream, metrics } = opts;
  const settings = opts.readplan;
  if (!settings) return readService(upstream, metrics, undefined, async () => {});
  const loader = createChunkLoader({
    url: createUrlFetcher({ connections: settings.connections, timeoutMs: settings.timeoutMs }),
    ...(settings.s3 ? { s3: createS3Fetcher(settings.s3, settings) } : {}),
    cacheBytes: settings.cacheBytes,
    loadingBytes: settings.loadingBytes,
    metrics,
  });
  const deps = {
    upstream,
    loader,
    metrics,
    planLimit: settings.planLimit,
    prefetch: settings.prefetch,
  };
  return readService(upstream, metrics, deps, () => loader.close());
}

/** The service over given parts; `deps` absent: every read goes through the star. */
export function readService(
  upstream: Pick<Upstream, "unary">,
  metrics: ReadPlanMetrics,
  deps: HistoryDeps | undefined,
  close: () => Promise<void>,
): ReadService {
  const history: HistorySource | undefined = deps && {
    read: (address, start, limits, call, timings = newTimings()) =>
      readHistory(deps, {
        address,
        start,
        clamp: false,
        limits,
        batchRecords: PAGE_MAX_RECORDS,
        batchBytes: PAGE_MAX_BYTES,
        call,
        timings,
      }),
  };

  const trail = new PageTrail(PAGE_TRAIL_STREAMS);

  return {
    history,
    async page(address, query, call) {
      const result = await readPage(address, query, call);
      const last = result.response.records.at(-1);
      // Only the object-storage path reads ahead.
      if (deps && last) trail.ended(address, BigInt(last.seq_num) + 1n);
      return result;
    },
    close,
  };

  async function readPage(
    address: { bucket: string; key: string },
    query: ReadQuery,
    call: CallOptions,
  ): Promise<PageResult> {
    const timings = newTimings();
    const fields = readRequestFields(query);
    const route = { ...call, ...address };
    const start = planStart(query.start);
    if (!deps || query.wait > 0 || start === undefined) {
      const response = await timed(timings, "starMs", () =>
        upstream.unary("Read", { ...address, ...fields }, route),
      );
      return { response, timings };
    }
    const until = fields.until_ms === undefined ? undefined : BigInt(fields.until_ms);
    const limits = new PageRule(fields.count, Number(fields.bytes), until);
    const records: Record__Output[] = [];
    const reader = readHistory(deps, {
      address,
      start,
      clamp: fields.clamp,
      limits,
      batchRecords: PAGE_MAX_RECORDS,
      batchBytes: PAGE_MAX_BYTES,
      call,
      timings,
      readAhead: "seq_num" in start && trail.follows(address, BigInt(start.seq_num)),
    });
    let end: HistoryEnd;
    let tail: Position__Output | null = null;
    for (;;) {
      const step = await reader.next();
      if (step.done) {
        end = step.value;
        break;
      }
      for (const r of step.value.records) records.push(r);
      tail = step.value.tail;
    }
    // The whole page through one Read: no plan, or a trim overtook the plan's page and took
    // records it holds (its bounds were spent on them: the star's page has others).
    const starPage = async (): Promise<PageResult> => {
      const response = await timed(timings, "starMs", () =>
        upstream.unary("Read", { ...address, ...fields }, route),
      );
      return { response, timings };
    };
    if (!end.planned) return starPage();
    const below = (seq: bigint) => records.some((r) => BigInt(r.seq_num) < seq);
    if (end.trimmedTo !== undefined && below(end.trimmedTo)) return starPage();
    // A batch's tail is at least one past its last record; the plan's may be older.
    if (!tail || (end.tail && BigInt(end.tail.seq_num) > BigInt(tail.seq_num))) {
      tail = end.tail ?? null;
    }
    if (!end.exhausted) {
      // The rest of the page, past the settled range, from where the plan phase ended.
      const rest = limits.remaining();
      const starRead = pageRead({
        upstream,
        address,
        call,
        clamp: fields.clamp,
        untilMs: limits.untilMs,
        timings,
      });
      let res: ReadResponse__Output;
      try {
        res = await starRead(end.next, rest.count, rest.bytes);
      } catch (err) {
        const at = "seq_num" in end.next ? BigInt(end.next.seq_num) : undefined;
        if (at === undefined || !(await pageEndsAt(starRead, at, limits))) throw err;
        return { response: { records, tail }, timings };
      }
      tail = res.tail;
      const shown = trimPointShown(end.next, res);
      if (shown !== undefined && below(shown)) return starPage();
      let served = 0;
      for (const r of res.records) {
        const size = contentBytes(r);
        if (!limits.admits(BigInt(r.timestamp_ms), size)) break;
        limits.take(size);
        records.push(r);
        served++;
      }
      metrics.records.inc({ source: "star" }, served);
      if (res.closed && served === res.records.length) {
        return { response: { records, tail, closed: true }, timings };
      }
      return { response: { records, tail }, timings };
    }
    // Ended by its bounds within the planned part: a closed stream's page that ends at its tail
    // says so, whichever part served it.
    const last = records.at(-1);
    const atTail = last && tail && BigInt(last.seq_num) + 1n === BigInt(tail.seq_num);
    if (end.closed && atTail) return { response: { records, tail, closed: true }, timings };
    return { response: { records, tail }, timings };
  }
}

/** A start ReadPlan takes: a seq_num or a timestamp (a tail start reads through the star). */
