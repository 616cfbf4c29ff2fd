// `npm run star`: one star process. Prints `nova-star <name> listening on HOST:PORT` on stdout
// when ready (logs go to stderr); SIGTERM and SIGINT shut it down gracefully.
import pino from "pino";
import { parseProcessFlags } from "../platform/cli/index.ts";
import { loadAuthConfig } from "./auth/config.ts";
import { flags, PROGRAM, SUMMARY } from "./flags.ts";
import { Fleet, FleetSpecError, type Member, parseMember } from "./fleet/members.ts";
import { DEFAULT_LIMITS, logCommitIntervalMs } from "./limits.ts";

const opts = parseProcessFlags(flags, PROGRAM, SUMMARY);
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
// The star's code loads once the flags are read: --help and a bad flag answer without it.
const [{ startStar }, { openStorage }] = await Promise.all([
  import("./star.ts"),
  import("./storage/open-storage.ts"),
]);
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
          requestTimeoutMs: opts.s3TimeoutMs,
          maxAttempts: opts.s3MaxAttempts,
          maxSockets: opts.s3Connections,
        },
      },
).catch((err: Error) => {
  // The bucket could not be reached or made: say so and where, not with a stack.
  process.stderr.write(`nova-star: object storage: ${err.message}\n`);
  process.exit(1);
});
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
    leaseMs: opts.leaseMs,
    forwardDeadlineMs: opts.forwardDeadlineMs,
    shutdownGraceMs: opts.shutdownGraceMs,
    readPlanMaxEntries: opts.readplanMaxEntries,
    readPlanDefaultEntries: Math.min(
      DEFAULT_LIMITS.readPlanDefaultEntries,
      opts.readplanMaxEntries,
    ),
    sessionWindow: opts.sessionWindow,
    maxSessions: opts.maxSessions,
    sessionIdleMs: opts.appendSessionIdleMs,
    maxSubscriptions: opts.maxSubscriptions,
    chunkCacheBytes: opts.chunkCacheMb * 1024 * 1024,
    throughputMaxWaitMs: opts.throughputMaxWaitMs,
    logCommitIntervalMs: logCommitIntervalMs(
      opts.dataDir === undefined ? "s3" : "embedded",
      opts.logCommitIntervalMs,
    ),
    logObjectMaxBytes: opts.logObjectMaxMb * 1024 * 1024,
    logPutsInFlight: opts.logPutsInFlight,
    settleChunkBytes: opts.settleChunkKb * 1024,
    settleMaxAgeMs: opts.settleMaxAgeMs,
    settleIntervalMs: opts.settleIntervalMs,
    streamIdleCloseMs: opts.streamIdleCloseMs,
    maxOpenStreams: opts.maxOpenStreams,
    maxUnsettledBytes: opts.settleMaxUnsettledMb * 1024 * 1024,
    appendsInFlightBytes: opts.appendsInFlightMb * 1024 * 1024,
    producerTtlMs: opts.producerTtlMs,
    maxProducersPerStream: opts.maxProducersPerStream,
    producerMemoryBytes: opts.producerMemoryMb * 1024 * 1024,
  },
});
logger.info({ star: star.id, address: star.address, storage: storage.location }, "star ready");

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
