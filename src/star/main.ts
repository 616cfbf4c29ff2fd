// `npm run star`: one star process. Prints `nova-star <name> listening on HOST:PORT` on stdout
// when ready (logs go to stderr); SIGTERM and SIGINT shut it down gracefully.
import pino from "pino";
import { defineFlags, parseProcessFlags } from "../platform/cli/index.ts";
import { loadAuthConfig } from "./auth/config.ts";
import { Fleet, FleetSpecError, type Member, parseMember } from "./fleet/members.ts";
import { DEFAULT_LIMITS } from "./limits.ts";
import { startStar } from "./star.ts";
import { openStorage } from "./storage.ts";

const flags = defineFlags({
  listen: {
    type: "string",
    default: "127.0.0.1:7171",
    help: "HOST:PORT to serve gRPC on (port 0 picks a free one)",
  },
  self: { type: "string", default: "star-1", help: "this star's name" },
  "data-dir": { type: "string", help: "run an embedded S3 server (s3rver) over this directory" },
  "s3-endpoint": { type: "string", help: "S3-compatible endpoint URL (instead of --data-dir)" },
  "s3-bucket": { type: "string", default: "nova", help: "object-storage bucket for all data" },
  "s3-region": { type: "string", default: "us-east-1", help: "S3 region" },
  "s3-access-key-id": { type: "string", default: "S3RVER", help: "S3 access key id" },
  "s3-secret-access-key": {
    type: "string",
    default: "S3RVER",
    help: "S3 secret (prefer the environment variable)",
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
    help: "decoded chunks kept in memory, MiB",
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
  "descriptor-ttl-ms": {
    type: "int",
    default: DEFAULT_LIMITS.descriptorTtlMs,
    min: 0,
    help: "in a fleet, how long a cached bucket or stream descriptor is trusted",
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
    help: "how long a ReadPlan and its presigned URLs are good for",
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
    default: DEFAULT_LIMITS.logCommitIntervalMs,
    min: 0,
    max: 10_000,
    help: "the least time between two log-object PUTs: each holds every stream's commits since the last (docs/storage-layout.md)",
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
    help: "unsettled records kept in memory, MiB over all streams, before the largest streams settle",
  },
  "log-level": { type: "string", default: "info", help: "pino log level (logs go to stderr)" },
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

const opts = parseProcessFlags(
  flags,
  "nova-star",
  "A nova reference star: nova.v1.DataPlaneService over gRPC, durable on S3.",
);
if ((opts.dataDir === undefined) === (opts.s3Endpoint === undefined)) {
  process.stderr.write("nova-star: give exactly one of --data-dir DIR or --s3-endpoint URL\n");
  process.exit(2);
}
if (opts.readplanUrls !== "presigned" && opts.readplanUrls !== "object") {
  process.stderr.write(
    `nova-star: --readplan-urls must be presigned or object, got ${JSON.stringify(opts.readplanUrls)}\n`,
  );
  process.exit(2);
}
const readPlanUrls: "presigned" | "object" = opts.readplanUrls;
let fleet: Member[] | undefined;
try {
  fleet = opts.fleet.length === 0 ? undefined : opts.fleet.map(parseMember);
  // Refuses a fleet that leaves this star out or lists a name or an address twice.
  if (fleet) new Fleet(opts.self, fleet);
} catch (err) {
  if (!(err instanceof FleetSpecError)) throw err;
  process.stderr.write(`nova-star: --fleet: ${err.message}\n`);
  process.exit(2);
}
const auth = await loadAuthConfig(opts).catch((err: Error) => {
  process.stderr.write(`nova-star: ${err.message}\n`);
  process.exit(2);
});
const logger = pino({ level: opts.logLevel }, pino.destination(2));
logger.info({ node: process.version }, "nova-star starting");
const storage = await openStorage(
  opts.dataDir !== undefined
    ? { kind: "embedded", dataDir: opts.dataDir, bucket: opts.s3Bucket }
    : {
        kind: "s3",
        s3: {
          endpoint: opts.s3Endpoint as string,
          bucket: opts.s3Bucket,
          region: opts.s3Region,
          accessKeyId: opts.s3AccessKeyId,
          secretAccessKey: opts.s3SecretAccessKey,
        },
      },
);
const star = await startStar({
  id: opts.self,
  listen: opts.listen,
  store: storage.store,
  logger,
  retentionIntervalMs: opts.retentionIntervalMs,
  auth,
  fleet,
  readPlan: { urls: readPlanUrls, ttlSeconds: opts.readplanTtlSeconds },
  limits: {
    descriptorTtlMs: opts.descriptorTtlMs,
    readPlanMaxEntries: opts.readplanMaxEntries,
    readPlanDefaultEntries: Math.min(
      DEFAULT_LIMITS.readPlanDefaultEntries,
      opts.readplanMaxEntries,
    ),
    sessionWindow: opts.sessionWindow,
    maxSessions: opts.maxSessions,
    maxSubscriptions: opts.maxSubscriptions,
    chunkCacheBytes: opts.chunkCacheMb * 1024 * 1024,
    throughputMaxWaitMs: opts.throughputMaxWaitMs,
    logCommitIntervalMs: opts.logCommitIntervalMs,
    logObjectMaxBytes: opts.logObjectMaxMb * 1024 * 1024,
    logPutsInFlight: opts.logPutsInFlight,
    settleChunkBytes: opts.settleChunkKb * 1024,
    settleMaxAgeMs: opts.settleMaxAgeMs,
    settleIntervalMs: opts.settleIntervalMs,
    maxUnsettledBytes: opts.settleMaxUnsettledMb * 1024 * 1024,
  },
});
logger.info({ star: star.id, address: star.address, storage: storage.endpoint }, "star ready");

let stopping = false;
const stop = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, "shutting down");
  await star.close();
  await storage.close();
  process.exit(0);
};
process.on("SIGTERM", () => void stop("SIGTERM"));
process.on("SIGINT", () => void stop("SIGINT"));
// Ready only once the signal handlers are in: a supervisor may stop us as soon as it reads this.
process.stdout.write(`nova-star ${star.id} listening on ${star.address}\n`);
