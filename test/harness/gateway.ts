// The gateway under test: the app in this process over the real fleet client, or `src/main.ts`
// as a child process, in front of the given stars.
import { readFileSync } from "node:fs";
import pino from "pino";
import { type AppOptions, buildApp } from "../../src/gateway/app.ts";
import {
  createReadService,
  DEFAULT_READPLAN_SETTINGS,
  type ReadPlanSettings,
} from "../../src/gateway/history/index.ts";
import {
  createMetrics,
  type GatewayMetrics,
  metricsObserver,
} from "../../src/gateway/http/index.ts";
import { FleetClient, fleetUpstream } from "../../src/gateway/upstream/index.ts";
import { nodeArgs, type RunningProcess, startProcess } from "./process.ts";

export interface Gateway {
  base: string;
  metrics: GatewayMetrics;
  close(): Promise<void>;
}

export interface InProcessOptions extends Partial<AppOptions> {
  /**
   * Builds the read service here: settings over the defaults, or false (every read goes through
   * the stars). Unset: the app's own default read service.
   */
  readplan?: Partial<ReadPlanSettings> | false;
}

/** The gateway app in this process, over the fleet client, on `port` (0: a free one). */
export async function inProcessGateway(
  stars: string[],
  options: InProcessOptions = {},
  port = 0,
): Promise<Gateway> {
  const { readplan, ...appOptions } = options;
  const metrics = createMetrics();
  const fleet = new FleetClient({ stars, observer: metricsObserver(metrics) });
  const upstream = fleetUpstream(fleet);
  const reads =
    readplan === undefined
      ? undefined
      : createReadService({
          upstream,
          metrics: metrics.readplan,
          ...(readplan === false
            ? {}
            : { readplan: { ...DEFAULT_READPLAN_SETTINGS, ...readplan } }),
        });
  const app = await buildApp({
    upstream,
    ...(reads === undefined ? {} : { reads }),
    metrics,
    // Errors (a 5xx and its cause) on stderr, so a failing test in CI shows them.
    logger: pino(
      { level: process.env.TEST_GATEWAY_LOG ?? "error" },
      pino.destination({ fd: 2, sync: true }),
    ),
    bodyLimit: 4 * 1024 * 1024,
    inflightAppendBytes: 64 * 1024 * 1024,
    corsOrigins: [],
    ...appOptions,
  });
  // Fastify names the scheme after its own TLS option, which the gateway's listener does not use.
  const listening = await app.listen({ host: "127.0.0.1", port });
  const base = appOptions.tls ? listening.replace(/^http:/, "https:") : listening;
  return {
    base,
    metrics,
    async close() {
      await app.close();
      await reads?.close();
      fleet.close();
    },
  };
}

export interface GatewayProcess {
  base: string;
  proc: RunningProcess;
  /** The gateway process's resident set size now, bytes (from /proc). */
  rss(): number;
  close(): Promise<void>;
}

/**
 * `src/main.ts` as a child process in front of `stars`, with more flags. Without a `--port` of
 * its own it takes a free one; without a `--drain-delay-ms` it drains with no delay (nothing in
 * front of it needs one).
 */
export async function gatewayProcess(
  stars: string[],
  args: string[] = [],
  logLevel = "warn",
): Promise<GatewayProcess> {
  const [command, argv] = nodeArgs("src/main.ts", [
    ...(args.includes("--port") ? [] : ["--port", "0"]),
    "--stars",
    stars.join(","),
    "--log-level",
    logLevel,
    ...(args.includes("--drain-delay-ms") ? [] : ["--drain-delay-ms", "0"]),
    ...args,
  ]);
  const proc = await startProcess({
    command,
    args: argv,
    readyLine: /^nova-gateway listening on (https?:\/\/\S+)$/,
  });
  const pid = proc.child.pid as number;
  return {
    base: proc.match[1] as string,
    proc,
    rss() {
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      const kb = Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1]);
      return kb * 1024;
    },
    async close() {
      await proc.kill("SIGTERM");
    },
  };
}

/**
 * `npm start`'s entry as a child process: an embedded star and object storage in `dataDir`.
 * Without a `--drain-delay-ms` of its own it drains with no delay.
 */
export async function embeddedGateway(
  dataDir: string,
  more: string[] = [],
): Promise<{ url: string; proc: RunningProcess }> {
  const [command, args] = nodeArgs("src/main.ts", [
    ...["--port", "0", "--data-dir", dataDir, "--log-level", "warn"],
    ...(more.includes("--drain-delay-ms") ? [] : ["--drain-delay-ms", "0"]),
    ...more,
  ]);
  const proc = await startProcess({
    command,
    args,
    readyLine: /^nova-gateway listening on (http:\/\/\S+)$/,
  });
  return { url: proc.match[1] as string, proc };
}
