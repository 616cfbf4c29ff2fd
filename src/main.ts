// `npm start`: the gateway. With no --stars it embeds a star and object storage under
// --data-dir; it prints `nova-gateway listening on http(s)://HOST:PORT` when ready, and drains on
// SIGTERM and SIGINT. With --workers N this first process forks N gateway processes that serve
// the port (src/gateway/cluster/), and runs the embedded star itself.
import cluster from "node:cluster";
import { readFile } from "node:fs/promises";
import { hostname } from "node:os";
import { resolve } from "node:path";
import { getHeapSpaceStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import pino from "pino";
import { flags, PROGRAM, SUMMARY } from "./flags.ts";
import type { WorkerLink as Link, StopSignal } from "./gateway/index.ts";
import {
  DEFAULT_HUB_RING,
  DEFAULT_READPLAN_SETTINGS,
  FORWARDED_HEADERS,
} from "./gateway/settings.ts";
import { argsWithout, envName, parseProcessFlags } from "./platform/cli/index.ts";
import { countFullCollections, GarbageNudge, settledBytes } from "./platform/memory/index.ts";
import type { OpenStorage, RunningStar } from "./star/index.ts";

const opts = parseProcessFlags(flags, PROGRAM, SUMMARY);
const refuse = (message: string): never => {
  process.stderr.write(`nova-gateway: ${message}\n`);
  process.exit(2);
};
const forwardedHeader = FORWARDED_HEADERS.find((h) => h === opts.forwardedHeader);
if (!forwardedHeader) {
  refuse(
    `--forwarded-header: ${opts.forwardedHeader} is not one of ${FORWARDED_HEADERS.join(", ")}`,
  );
}
if (opts.forwardedHeader === "forwarded" && opts.trustProxy.length === 0) {
  refuse("--forwarded-header=forwarded needs --trust-proxy naming the balancers that write it");
}
// A hint past the idle time the gateway keeps would send clients onto closed connections.
if (opts.keepAliveHintS * 1000 >= opts.keepAliveTimeoutMs) {
  refuse(
    `--keep-alive-hint-s (${opts.keepAliveHintS} s) must be below --keep-alive-timeout-ms (${opts.keepAliveTimeoutMs} ms): clients would send on connections the gateway is closing`,
  );
}
if (opts.proxyProtocol && opts.trustProxy.length === 0) {
  refuse("--proxy-protocol needs --trust-proxy naming the balancers that send it");
}
if ((opts.tlsCert === undefined) !== (opts.tlsKey === undefined)) {
  refuse("--tls-cert and --tls-key go together");
}
// Stop signals are taken from here on (once this module's imports have loaded), while the
// process starts (a group's SIGTERM reaches a worker still loading its code): each is kept
// until the part that acts on it is up, rather than killing the process by the default action.
const signals = keptUntilActedOn<StopSignal>();
for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, () => signals.ask(signal));
// The gateway's code loads once the flags are read: --help and a bad flag answer without it
// (about 1 s of CPU; src/gateway/settings.ts holds what the flags need of it).
const {
  buildApp,
  ClusterPrimary,
  createMetrics,
  createReadService,
  Drain,
  FleetClient,
  fleetUpstream,
  isLoopbackName,
  metricsObserver,
  StopRequests,
  trustedProxies,
  WorkerLink,
} = await import("./gateway/index.ts");
try {
  trustedProxies(opts.trustProxy);
} catch (err) {
  refuse(`--trust-proxy: ${(err as Error).message}`);
}
const pem = (flag: string, file: string) =>
  readFile(file).catch((err: Error) => refuse(`${flag} ${file}: ${err.message}`));
const tls =
  opts.tlsCert && opts.tlsKey
    ? { cert: await pem("--tls-cert", opts.tlsCert), key: await pem("--tls-key", opts.tlsKey) }
    : undefined;
// Logs go to stderr, so stdout carries only the ready line.
const logger = pino(
  {
    level: opts.logLevel,
    ...(cluster.worker
      ? { base: { pid: process.pid, hostname: hostname(), worker: cluster.worker.id } }
      : {}),
  },
  pino.destination(2),
);
logger.info({ node: process.version }, "nova-gateway starting");

let storage: OpenStorage | undefined;
let star: RunningStar | undefined;
let stars = opts.stars;
if (stars.length === 0) {
  const dataDir = resolve(opts.dataDir);
  // The star's code loads only when it is embedded: a gateway in front of a fleet starts quicker.
  const { logCommitIntervalMs, openStorage, startStar } = await import("./star/index.ts");
  // Said in one line (a directory in use by another process, a file in the way), not a stack.
  storage = await openStorage({ kind: "embedded", dataDir, bucket: "nova" }).catch((err: Error) =>
    refuse(`--data-dir ${dataDir}: ${err.message}`),
  );
  star = await startStar({
    id: "embedded",
    listen: "127.0.0.1:0",
    store: storage.store,
    logger,
    limits: { logCommitIntervalMs: logCommitIntervalMs("embedded") },
  });
  stars = [star.address];
}
/** The embedded store's S3 endpoint, serving from the start: the gateway reads chunks there. */
const storageEndpoint = await storage?.endpoint();

if (opts.workers > 1 && cluster.isPrimary) await runPrimary();

const metrics = createMetrics();
// A worker takes the primary's stop and signals from its first moment (node:cluster drops a
// message nobody listens for yet): one that comes while it starts is acted on once it serves.
const early = keptUntilActedOn<StopSignal>();
const link = cluster.isWorker ? workerLink() : undefined;
// The embedded star's caches live in this process: its /metrics shows them beside the gateway's.
if (star) metrics.memory.include("star_", star.memory);
const fleet = new FleetClient({
  stars,
  callDeadlineMs: opts.starCallTimeoutMs,
  deadlines: { Append: opts.starAppendTimeoutMs },
  healthDeadlineMs: opts.starHealthTimeoutMs,
  keepalive: { timeMs: opts.starKeepaliveMs, timeoutMs: opts.starKeepaliveTimeoutMs },
  observer: metricsObserver(metrics),
  ...(star ? { inProcess: { address: star.address, star: star.inProcess } } : {}),
});
const upstream = fleetUpstream(fleet);
const s3Endpoint = opts.s3Endpoint ?? storageEndpoint;
const reads = createReadService({
  upstream,
  metrics: metrics.readplan,
  ...(opts.readplan
    ? {
        readplan: {
          ...(s3Endpoint === undefined
            ? {}
            : {
                s3: {
                  endpoint: s3Endpoint,
                  region: opts.s3Region,
                  accessKeyId: opts.s3AccessKeyId,
                  secretAccessKey: opts.s3SecretAccessKey,
                },
              }),
          cacheBytes: opts.readplanCacheMb * 1024 * 1024,
          loadingBytes: opts.readplanLoadingMb * 1024 * 1024,
          prefetch: opts.readplanPrefetch,
          connections: opts.readplanConnections,
          timeoutMs: opts.readplanTimeoutMs,
          planLimit: DEFAULT_READPLAN_SETTINGS.planLimit,
        },
      }
    : {}),
});
const drain = new Drain();
const app = await buildApp({
  upstream,
  reads,
  metrics,
  logger,
  bodyLimit: opts.bodyLimitMb * 1024 * 1024,
  inflightAppendBytes: opts.inflightAppendMb * 1024 * 1024,
  headersTimeoutMs: opts.headersTimeoutMs,
  sendTimeoutMs: opts.sendTimeoutMs,
  unsentAnswers: {
    maxBytes: opts.unsentAnswersMb * 1024 * 1024,
    clientMaxBytes: opts.unsentAnswersClientMb * 1024 * 1024,
  },
  keepAliveHintS: opts.keepAliveHintS,
  keepAliveTimeoutMs: opts.keepAliveTimeoutMs,
  ...(tls ? { tls } : {}),
  h2MaxStreams: opts.h2MaxStreams,
  maxConnections: opts.maxConnections,
  inflightAppendClientBytes: opts.inflightAppendClientMb * 1024 * 1024,
  bodyTimeouts: { idleMs: opts.bodyIdleMs, totalMs: opts.bodyTimeoutMs },
  sessionIdleMs: opts.sessionIdleMs,
  failoverMs: opts.subscribeFailoverMs,
  corsOrigins: opts.corsOrigins,
  // A gateway on loopback told of no proxy in front is one a browser on this machine reaches.
  ...(opts.allowedHosts.length > 0 || (isLoopbackName(opts.host) && opts.trustProxy.length === 0)
    ? { hostCheck: { allowed: opts.allowedHosts } }
    : {}),
  trustProxy: opts.trustProxy,
  ...(forwardedHeader ? { forwardedHeader } : {}),
  proxyProtocol: opts.proxyProtocol,
  drain,
  maxWaitS: opts.maxWaitS,
  ssePingMs: opts.ssePingMs,
  slowConsumerMs: opts.slowConsumerMs,
  sseMaxStreams: opts.sseMaxStreams,
  cacheMaxAgeS: opts.cacheMaxAgeS,
  ds: { bucket: opts.dsBucket, longPollMs: opts.dsLongPollMs, sseCloseS: opts.dsSseCloseS },
  maxSessionsPerClient: opts.maxSessionsPerClient,
  ndjsonSessionBytes: opts.ndjsonSessionMb * 1024 * 1024,
  drainGraceMs: opts.drainGraceMs,
  console: opts.console,
  compression: opts.compression && { minBytes: opts.compressMinBytes },
  hubs: opts.subscribeSharing
    ? {
        ring: {
          ...DEFAULT_HUB_RING,
          maxBytes: opts.hubRingMb * 1024 * 1024,
          maxAgeMs: opts.hubWindowMs,
        },
        totalBytes: opts.hubRingsMb * 1024 * 1024,
        lingerMs: opts.hubLingerMs,
        fanoutSlice: opts.hubFanoutSlice,
        readGrantMs: opts.readGrantMs,
      }
    : false,
});
// Fastify names the scheme after its own TLS option, which the gateway's listener does not use.
const listening = await app
  .listen({ host: opts.host, port: opts.port })
  .catch((err: Error) => refuse(`--host ${opts.host} --port ${opts.port}: ${err.message}`));
const url = listening.replace(/^http:/, tls ? "https:" : "http:");
const nudge =
  opts.gcSlackMb > 0
    ? startGarbageNudge(opts.gcSlackMb * 1024 * 1024, opts.gcLeftoverMs)
    : undefined;
let stopping = false;
/** Whether anyone was told this gateway serves (its ready line, or its primary). */
let announced = false;
const stop = async (signal: NodeJS.Signals) => {
  // Ctrl-C, or a second signal, skips what is left of the drain delay; so does a stop that came
  // while it started: nothing routes to a gateway that never said it serves.
  const hurried = signal === "SIGINT" || stopping || !announced;
  if (hurried) drain.hurry();
  if (stopping) return;
  stopping = true;
  logger.info({ signal, drainDelayMs: hurried ? 0 : opts.drainDelayMs }, "draining");
  await drain.shutDown(app, opts.drainDelayMs, opts.drainGraceMs);
  nudge?.stop();
  process.exit(
    await closeAll([
      ["reads", () => reads.close()],
      ["fleet", () => fleet.close()],
      ["star", () => star?.close()],
      ["storage", () => storage?.close()],
    ]),
  );
};

/**
 * Closes each part in order, the rest also when one fails (the embedded store's lock is given
 * back even if the star's last commit failed); 1 when one did, after logging it, else 0.
 */
async function closeAll(steps: [string, () => unknown][]): Promise<number> {
  let code = 0;
  for (const [part, close] of steps) {
    try {
      await close();
    } catch (err) {
      logger.error({ err, part }, "closing failed");
      code = 1;
    }
  }
  return code;
}
/** Full collections when dead buffers pile up (platform/memory/garbage-nudge.ts). */
function startGarbageNudge(slackBytes: number, leftoverMs: number): GarbageNudge {
  // How often it looks at memory; --gc-leftover-ms counts in these looks.
  const lookMs = 1000;
  // Node gives a script gc() only with --expose-gc; with the flag set, a new context has it.
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as (options: { type: "major"; execution: "async" }) => unknown;
  let lastLoop = performance.eventLoopUtilization();
  const nudge = new GarbageNudge({
    slackBytes,
    intervalMs: lookMs,
    quietLooks: Math.round(leftoverMs / lookMs),
    quietBusy: 0.1,
    measure: () => {
      const buffers = process.memoryUsage().external;
      return { buffers, settled: settledBytes(getHeapSpaceStatistics(), buffers) };
    },
    busy: () => {
      const now = performance.eventLoopUtilization();
      const busy = performance.eventLoopUtilization(now, lastLoop).utilization;
      lastLoop = now;
      return busy;
    },
    collect: () => void gc({ type: "major", execution: "async" }),
    fullCollections: countFullCollections(),
  });
  nudge.start();
  return nudge;
}

if (link) {
  early.actWith((signal) => void stop(signal));
  metrics.render = () => link.metricsText();
  link.ready(url);
  announced = true;
} else {
  signals.actWith((signal) => void stop(signal));
  // Ready only once the signal handlers are in: a supervisor may stop us as soon as it reads this;
  // one that stopped us while we started reads no ready line.
  if (!stopping) {
    process.stdout.write(`nova-gateway listening on ${url}\n`);
    announced = true;
  }
}

/** A worker's link to its primary, with its stop requests (which wait while it starts). */
function workerLink(): Link {
  const requests = new StopRequests((signal) => early.ask(signal));
  signals.actWith((signal) => requests.request(signal, "signal"));
  return new WorkerLink({
    registry: metrics.registry,
    // Past the primary's wait for the other workers' parts.
    timeoutMs: 2 * opts.clusterIpcTimeoutMs,
    onStop: (signal) => requests.request(signal, "primary"),
    onOrphaned: () => {
      // node:cluster exits a worker whose primary is gone at once, unless it exits by choice:
      // this one drains first.
      if (cluster.worker) cluster.worker.exitedAfterDisconnect = true;
      requests.request("SIGINT", "primary");
    },
  });
}

/**
 * `--workers N`: forks the gateway processes (an embedded star stays here, in front of them all),
 * prints the ready line once every one serves, and stops them on a signal. Never returns.
 */
async function runPrimary(): Promise<never> {
  const own = createMetrics();
  if (star) own.memory.include("star_", star.memory);
  // Workers take the port from the environment: once the first ones have bound it, their
  // replacements get the bound port, for node:cluster closes the port when its last worker dies
  // and a worker asking for --port 0 again would get another.
  cluster.setupPrimary({ args: argsWithout(process.argv.slice(2), "port") });
  const primary = new ClusterPrimary({
    workers: opts.workers,
    env: {
      [envName("port")]: String(opts.port),
      ...(star ? { NOVA_STARS: stars.join(",") } : {}),
      ...(storageEndpoint ? { NOVA_S3_ENDPOINT: storageEndpoint } : {}),
    },
    logger,
    ipcTimeoutMs: opts.clusterIpcTimeoutMs,
    registry: own.registry,
  });
  // Once: a second signal stops the workers again, and must not close the star twice.
  let exiting: Promise<never> | undefined;
  const exit = (code: number): Promise<never> => {
    exiting ??= (async () => {
      const closed = await closeAll([
        ["star", () => star?.close()],
        ["storage", () => storage?.close()],
      ]);
      process.exit(Math.max(code, closed));
    })();
    return exiting;
  };
  let stopping = false;
  const stopAll = async (signal: NodeJS.Signals) => {
    if (!stopping) logger.info({ signal, workerPids: primary.pids }, "stopping the workers");
    stopping = true;
    await exit(await primary.stop(signal === "SIGINT" ? "SIGINT" : "SIGTERM"));
  };
  // Stopped while the embedded star started: no worker is forked.
  if (signals.pending) return exit(0);
  signals.actWith((signal) => void stopAll(signal));
  let url: string;
  try {
    url = await primary.start();
  } catch (err) {
    logger.error({ err }, "the workers did not start");
    await primary.stop("SIGINT");
    return exit(1);
  }
  primary.forkWith({ [envName("port")]: boundPort(url) });
  logger.info({ workerPids: primary.pids, url }, "workers ready");
  process.stdout.write(`nova-gateway listening on ${url}\n`);
  return new Promise<never>(() => {});
}

/** The port a URL names, its scheme's when it names none. */
function boundPort(url: string): string {
  const u = new URL(url);
  return u.port || (u.protocol === "https:" ? "443" : "80");
}

/** Requests kept until `actWith` gives what acts on them: then those first, in order. */
function keptUntilActedOn<T>() {
  let act: ((request: T) => void) | undefined;
  const kept: T[] = [];
  return {
    ask(request: T): void {
      if (act) act(request);
      else kept.push(request);
    },
    actWith(acting: (request: T) => void): void {
      act = acting;
      for (const request of kept.splice(0)) acting(request);
    },
    /** Whether a request waits for what acts on it. */
    get pending(): boolean {
      return kept.length > 0;
    },
  };
}
