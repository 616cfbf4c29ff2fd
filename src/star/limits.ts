// The star's caps and defaults. Sizes are content bytes (body plus header names and values).
export interface StarLimits {
  maxRecordBytes: number;
  maxBatchBytes: number;
  maxHeaders: number;
  maxFencingTokenBytes: number;
  readPageRecords: number;
  readPageBytes: number;
  /** Batches one AppendSession may have in flight before the star stops reading frames. */
  sessionWindow: number;
  maxSessions: number;
  maxSubscriptions: number;
  listLimit: number;
  /** Decoded chunks kept in memory for reads, in payload bytes. */
  chunkCacheBytes: number;
  /** How often an idle subscription gets a heartbeat with the tail. */
  subscribeHeartbeatMs: number;
}

export const DEFAULT_LIMITS: StarLimits = {
  maxRecordBytes: 1024 * 1024,
  maxBatchBytes: 100 * 1024 * 1024,
  maxHeaders: 100,
  maxFencingTokenBytes: 48,
  readPageRecords: 1000,
  readPageBytes: 1024 * 1024,
  sessionWindow: 64,
  maxSessions: 1024,
  maxSubscriptions: 10_000,
  listLimit: 1000,
  chunkCacheBytes: 256 * 1024 * 1024,
  subscribeHeartbeatMs: 10_000,
};
