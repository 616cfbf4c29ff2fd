// The star's caps and defaults. Sizes are content bytes (body plus header names and values).
import {
  MAX_BATCH_BYTES,
  MAX_FENCING_TOKEN_BYTES,
  MAX_LIST_LIMIT,
  MAX_RECORD_BYTES,
  PAGE_MAX_BYTES,
  PAGE_MAX_RECORDS,
} from "../contract/wire-limits.ts";
import type { StorageConfig } from "./storage/open-storage.ts";

/** A request's limit: 0 (unset) means the maximum, and anything above the maximum is clamped. */
export function clampLimit(asked: number, max: number): number {
  return asked <= 0 || asked > max ? max : asked;
}

export interface StarLimits {
  maxRecordBytes: number;
  maxBatchBytes: number;
  maxFencingTokenBytes: number;
  readPageRecords: number;
  readPageBytes: number;
  /** Batches one AppendSession may have in flight before the star stops reading frames. */
  sessionWindow: number;
  maxSessions: number;
  /**
   * An AppendSession with no frame for this long and no batch in flight is ended, its slot of
   * maxSessions freed; 0: never.
   */
  sessionIdleMs: number;
  maxSubscriptions: number;
  listLimit: number;
  /** Decoded chunks kept in memory for reads, in payload bytes. */
  chunkCacheBytes: number;
  /** How often an idle subscription gets a heartbeat with the tail. */
  subscribeHeartbeatMs: number;
  /** ReadPlan entries when the request's limit is 0, and the most any request gets. */
  readPlanDefaultEntries: number;
  readPlanMaxEntries: number;
  /**
   * How long a star in a fleet of several trusts a cached bucket or stream descriptor before
   * reading it again (another member may have written it). A fleet of one trusts it forever.
   */
  descriptorTtlMs: number;
  /**
   * In a fleet of several, a member's lease (docs/fleet.md, "Leases"): renewed every quarter of
   * it; a member that has not renewed for this long is taken over by another.
   */
  leaseMs: number;
  /** Streams this star follows (reads without leading), each a small chunk directory. */
  followerViews: number;
  /** Deadline of a call passed on to the stream's leader, when the caller set none shorter. */
  forwardDeadlineMs: number;
  /** On shutdown, how long calls still running may finish before they are cut. */
  shutdownGraceMs: number;
  /**
   * The longest a stream's throughput cap (throughput_max_bytes_per_second) may hold an append
   * before it is committed; an append it would hold longer is refused with RESOURCE_EXHAUSTED.
   */
  throughputMaxWaitMs: number;
  /** The least time between the starts of two log-object PUTs (docs/storage-layout.md). */
  logCommitIntervalMs: number;
  /** A log object takes waiting commits up to about this many stored bytes. */
  logObjectMaxBytes: number;
  /** Log-object PUTs in flight at once (each still at least the commit interval after the last). */
  logPutsInFlight: number;
  /** A stream settles once it holds this many unsettled content bytes: chunks sized for reads. */
  settleChunkBytes: number;
  /** A quiet stream settles once its oldest unsettled record was acked this long ago. */
  settleMaxAgeMs: number;
  /** How often the settler looks for streams to settle (and retries deleting log objects). */
  settleIntervalMs: number;
  /** A stream with nothing under way closes after this long unused, and opens again on use; 0: never. */
  streamIdleCloseMs: number;
  /** Streams open at once; at the bound the quietest close first (registry.ts). */
  maxOpenStreams: number;
  /** Memory unsettled records hold (content and objects), all streams together, before the largest settle. */
  maxUnsettledBytes: number;
  /** Memory of appends taken and not yet answered, all streams together (append-budget.ts). */
  appendsInFlightBytes: number;
  /** A producer idle this long is forgotten by the stream (docs/producers.md). */
  producerTtlMs: number;
  /** Producers one stream remembers; a new one past it waits for one to expire. */
  maxProducersPerStream: number;
  /** Memory for every stream's producers together; a new producer past it waits too. */
  producerMemoryBytes: number;
}

export const DEFAULT_LIMITS: StarLimits = {
  maxRecordBytes: MAX_RECORD_BYTES,
  maxBatchBytes: MAX_BATCH_BYTES,
  maxFencingTokenBytes: MAX_FENCING_TOKEN_BYTES,
  readPageRecords: PAGE_MAX_RECORDS,
  readPageBytes: PAGE_MAX_BYTES,
  sessionWindow: 64,
  maxSessions: 1024,
  sessionIdleMs: 300_000,
  maxSubscriptions: 10_000,
  listLimit: MAX_LIST_LIMIT,
  chunkCacheBytes: 256 * 1024 * 1024,
  subscribeHeartbeatMs: 10_000,
  readPlanDefaultEntries: 1000,
  readPlanMaxEntries: 10_000,
  descriptorTtlMs: 1000,
  leaseMs: 10_000,
  followerViews: 4096,
  forwardDeadlineMs: 30_000,
  shutdownGraceMs: 5000,
  throughputMaxWaitMs: 2000,
  logCommitIntervalMs: 10,
  logObjectMaxBytes: 16 * 1024 * 1024,
  logPutsInFlight: 1,
  settleChunkBytes: 1024 * 1024,
  settleMaxAgeMs: 30_000,
  settleIntervalMs: 1000,
  streamIdleCloseMs: 600_000,
  maxOpenStreams: 100_000,
  maxUnsettledBytes: 256 * 1024 * 1024,
  appendsInFlightBytes: 512 * 1024 * 1024,
  producerTtlMs: 7 * 24 * 3600 * 1000,
  maxProducersPerStream: 1000,
  producerMemoryBytes: 64 * 1024 * 1024,
};

/**
 * The log-commit interval on the embedded store (`--data-dir`, `npm start`): there a PUT is a
 * local file write, not a billed request, so log PUTs are paced 1 ms apart instead of 10 and a
 * lone writer's ack waits that much at most (docs/storage-layout.md, "Log objects"): a client
 * that sends one append per round trip (S2's fetch transport, about 1.4 ms a round trip on
 * `npm start`) is then not held by the pacing.
 */
export const EMBEDDED_LOG_COMMIT_INTERVAL_MS = 1;

/** A star's log-commit interval: the one given, or its store's default. */
export function logCommitIntervalMs(store: StorageConfig["kind"], given?: number): number {
  return (
    given ??
    (store === "embedded" ? EMBEDDED_LOG_COMMIT_INTERVAL_MS : DEFAULT_LIMITS.logCommitIntervalMs)
  );
}
