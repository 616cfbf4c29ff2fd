// The star's flags (`npm run star`, src/star/main.ts), with their environment variables and
// defaults; docs/configuration.md is generated from them (`npm run config-docs`).
import { defineFlags, httpUrl, LOG_LEVELS } from "../platform/cli/index.ts";
import { S3_CLIENT_DEFAULTS } from "../platform/objstore/settings.ts";
import { DEFAULT_LIMITS, EMBEDDED_LOG_COMMIT_INTERVAL_MS } from "./limits.ts";

export const PROGRAM = "nova-star";
export const SUMMARY = "A nova reference star: nova.v1.DataPlaneService over gRPC, durable on S3.";

export const flags = defineFlags({
  listen: {
    type: "string",
    default: "127.0.0.1:7171",
    help: "HOST:PORT to serve gRPC on (port 0 picks a free one)",
  },
  self: { type: "string", default: "star-1", help: "this star's name" },
  "data-dir": { type: "string", help: "run an embedded S3 server (s3rver) over this directory" },
  "s3-endpoint": {
    type: "string",
    check: httpUrl,
    help: "S3-compatible endpoint URL (instead of --data-dir)",
  },
  "s3-bucket": { type: "string", default: "nova", help: "object-storage bucket for all data" },
  "s3-region": { type: "string", default: "us-east-1", help: "S3 region" },
  "s3-access-key-id": { type: "string", default: "S3RVER", help: "S3 access key id" },
  "s3-secret-access-key": {
    type: "string",
    default: "S3RVER",
    help: "S3 secret (prefer the environment variable)",
  },
  "s3-timeout-ms": {
    type: "int",
    default: S3_CLIENT_DEFAULTS.timeoutMs,
    min: 1,
    help: "an S3 request's connect, response-header and idle-body timeout, ms (with --s3-endpoint); a request that times out is tried again while --s3-max-attempts allows",
  },
  "s3-max-attempts": {
    type: "int",
    default: S3_CLIENT_DEFAULTS.maxAttempts,
    min: 1,
    help: "attempts per S3 request (with --s3-endpoint): throttling, 5xx answers, lost connections and timeouts are tried again after a jittered backoff from 100 ms (1 s when throttled, at least the store's Retry-After), doubling",
  },
  "s3-connections": {
    type: "int",
    default: S3_CLIENT_DEFAULTS.connections,
    min: 1,
    help: "connections kept open to the S3 endpoint (with --s3-endpoint)",
  },
  "session-window": {
    type: "int",
    default: DEFAULT_LIMITS.sessionWindow,
    min: 1,
    help: "batches one AppendSession may have in flight",
  },
  "max-sessions": {
    type: "int",
    default: DEFAULT_LIMITS.maxSessions,
    min: 1,
    help: "concurrent AppendSessions",
  },
  "append-session-idle-ms": {
    type: "int",
    default: DEFAULT_LIMITS.sessionIdleMs,
    min: 0,
    help: "an AppendSession that sends no frame for this long with no batch in flight is ended with UNAVAILABLE (nothing lost; open another), freeing its --max-sessions slot; keep it above the gateway's --session-idle-ms; 0: never",
  },
  "max-subscriptions": {
    type: "int",
    default: DEFAULT_LIMITS.maxSubscriptions,
    min: 1,
    help: "concurrent Subscribe calls",
  },
  "chunk-cache-mb": {
    type: "int",
    default: DEFAULT_LIMITS.chunkCacheBytes >> 20,
    min: 0,
    help: "decoded chunks kept in memory for reads (those read back, and each stream's newest as written), MiB",
  },
  "stream-idle-close-ms": {
    type: "int",
    default: DEFAULT_LIMITS.streamIdleCloseMs,
    min: 0,
    // An age compared with clocks, never a timer's delay: any length.
    max: Number.MAX_SAFE_INTEGER,
    help: "a stream with nothing under way is closed after this long unused (its memory freed) and opened again from storage on its next use; checked at each retention round; 0: never",
  },
  "max-open-streams": {
    type: "int",
    default: DEFAULT_LIMITS.maxOpenStreams,
    min: 1,
    help: "streams a star holds open at once (a few KiB each); at it, opening another first closes those quiet the longest, as the idle close does; when none is quiet the call is RESOURCE_EXHAUSTED, retryable",
  },
  "retention-interval-ms": {
    type: "int",
    default: 5000,
    min: 10,
    help: "how often age and size retention run",
  },
  fleet: {
    type: "list",
    default: [],
    help: "every member NAME=HOST:PORT, this one (--self) too; none: a fleet of one (docs/fleet.md)",
  },
  "forward-deadline-ms": {
    type: "int",
    default: DEFAULT_LIMITS.forwardDeadlineMs,
    min: 1,
    help: "in a fleet, the deadline of a call passed on to the stream's leader when its caller set none sooner; a leader that has not answered by then is reported unreachable (UNAVAILABLE), and reads are served around it from storage",
  },
  "descriptor-ttl-ms": {
    type: "int",
    default: DEFAULT_LIMITS.descriptorTtlMs,
    min: 0,
    // An age compared with clocks, never a timer's delay: any length.
    max: Number.MAX_SAFE_INTEGER,
    help: "in a fleet, how long a cached bucket or stream descriptor is trusted",
  },
  "lease-ms": {
    type: "int",
    default: DEFAULT_LIMITS.leaseMs,
    min: 200,
    help: "in a fleet, a member's lease: renewed every quarter of it, taken over once it lapsed (docs/fleet.md)",
  },
  "readplan-urls": {
    type: "string",
    default: "presigned",
    help: "ReadPlan entries name chunks by presigned GET URL (presigned) or by bucket and key (object)",
  },
  "readplan-ttl-seconds": {
    type: "int",
    default: 900,
    min: 1,
    max: 7 * 24 * 3600,
    help: "how long a ReadPlan and its presigned URLs are good for at most; never past the caller's token",
  },
  "readplan-max-entries": {
    type: "int",
    default: DEFAULT_LIMITS.readPlanMaxEntries,
    min: 1,
    help: "the most entries one ReadPlan answers (a request's limit is clamped to it)",
  },
  "throughput-max-wait-ms": {
    type: "int",
    default: DEFAULT_LIMITS.throughputMaxWaitMs,
    min: 0,
    max: 30_000,
    help: "the longest a stream's throughput_max_bytes_per_second may hold an append; one it would hold longer is refused (429 resource_exhausted at the gateway)",
  },
  "log-commit-interval-ms": {
    type: "int",
    min: 0,
    max: 10_000,
    help: `the least time between two log-object PUTs: each holds every stream's commits since the last (docs/storage-layout.md); by default ${DEFAULT_LIMITS.logCommitIntervalMs} with --s3-endpoint, ${EMBEDDED_LOG_COMMIT_INTERVAL_MS} with --data-dir`,
  },
  "log-object-max-mb": {
    type: "int",
    default: DEFAULT_LIMITS.logObjectMaxBytes >> 20,
    min: 1,
    help: "a log object takes waiting commits up to about this many MiB; the rest go in the next",
  },
  "log-puts-in-flight": {
    type: "int",
    default: DEFAULT_LIMITS.logPutsInFlight,
    min: 1,
    max: 64,
    help: "log-object PUTs in flight at once, each still at least the commit interval after the last",
  },
  "producer-ttl-ms": {
    type: "int",
    default: DEFAULT_LIMITS.producerTtlMs,
    min: 1000,
    // An age compared with clocks, never a timer's delay: any length.
    max: Number.MAX_SAFE_INTEGER,
    help: "a producer (nova-producer-id) idle this long is forgotten by the stream: a later batch from it at seq 0 starts it anew (a retry of its first batch is appended again), any other seq is refused as unknown",
  },
  "max-producers-per-stream": {
    type: "int",
    default: DEFAULT_LIMITS.maxProducersPerStream,
    min: 1,
    max: 100_000,
    help: "producers one stream remembers; a new one past it is refused (429, retryable) until one is idle past --producer-ttl-ms",
  },
  "producer-memory-mb": {
    type: "int",
    default: DEFAULT_LIMITS.producerMemoryBytes >> 20,
    min: 1,
    help: "memory for the producers of every stream the star leads, together; a new producer past it is refused (429, retryable) until others are idle past --producer-ttl-ms",
  },
  "settle-chunk-kb": {
    type: "int",
    default: DEFAULT_LIMITS.settleChunkBytes >> 10,
    min: 1,
    help: "a stream settles its acked records into a chunk object once it holds this many KiB",
  },
  "settle-max-age-ms": {
    type: "int",
    default: DEFAULT_LIMITS.settleMaxAgeMs,
    min: 0,
    help: "a quiet stream settles once its oldest unsettled record was acked this long ago",
  },
  "settle-interval-ms": {
    type: "int",
    default: DEFAULT_LIMITS.settleIntervalMs,
    min: 10,
    help: "how often the settler looks for streams to settle",
  },
  "settle-max-unsettled-mb": {
    type: "int",
    default: DEFAULT_LIMITS.maxUnsettledBytes >> 20,
    min: 0,
    help: "memory unsettled records hold (content plus about 200 bytes of objects each), MiB over all streams, before the largest streams settle",
  },
  "appends-in-flight-mb": {
    type: "int",
    default: DEFAULT_LIMITS.appendsInFlightBytes >> 20,
    min: 1,
    help: "memory appends taken and not yet committed may hold (content plus about 200 bytes a record), MiB over all streams; past it an append is RESOURCE_EXHAUSTED, retryable (one alone always goes)",
  },
  "shutdown-grace-ms": {
    type: "int",
    default: DEFAULT_LIMITS.shutdownGraceMs,
    min: 0,
    help: "on SIGTERM or SIGINT, how long calls still running may finish before they are cut and the star exits",
  },
  "log-level": {
    type: "string",
    default: "info",
    oneOf: LOG_LEVELS,
    help: "pino log level (logs go to stderr)",
  },
  "signing-key": {
    type: "string",
    help: "HS256 key (32+ bytes) that turns auth on (prefer the environment variable); docs/auth.md",
  },
  "api-keys": {
    type: "list",
    default: [],
    help: 'api keys, each "KEY_ID SECRET GRANT [GRANT ...]"; docs/auth.md',
  },
  "api-keys-file": { type: "string", help: "a file of api keys, one a line; docs/auth.md" },
});
