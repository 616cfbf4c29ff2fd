// `npm start`: the gateway. With no --stars it embeds a star and object storage under
// --data-dir; it prints `nova-gateway listening on http://HOST:PORT` when ready, and drains on
// SIGTERM and SIGINT.
import { mkdir } from "node:fs/promises";
import { resolve } from "node:path";
import pino from "pino";
import { buildApp, DEFAULT_BODY_LIMIT, REDACTED_PATHS } from "./app.ts";
import { defineFlags, parseProcessFlags } from "./cli/flags.ts";
import { FleetClient } from "./fleet/fleet-client.ts";
import { fleetUpstream, metricsObserver } from "./gateway/fleet-upstream.ts";
import { createMetrics } from "./plugins/metrics.ts";
import { type RunningStar, startStar } from "./star/star.ts";
import { type OpenStorage, openStorage } from "./star/storage.ts";

const flags = defineFlags({
  host: { type: "string", default: "127.0.0.1", help: "address to listen on" },
  port: {
    type: "int",
    default: 8080,
    min: 0,
    max: 65535,
    help: "port to listen on (0 picks a free one)",
  },
  "data-dir": {
    type: "string",
    default: "./.nova-data",
    help: "embedded star's object storage (ignored with --stars)",
  },
  stars: {
    type: "list",
    default: [],
    help: "external star fleet HOST:PORT,... (nothing embedded starts)",
  },
  "body-limit-mb": {
    type: "int",
    default: DEFAULT_BODY_LIMIT >> 20,
    min: 1,
    help: "largest JSON request body, MiB",
  },
  "inflight-append-mb": {
    type: "int",
    default: 512,
    min: 1,
    help: "append bytes in flight before 429, MiB",
  },
  "cors-origins": { type: "list", default: [], help: "origins allowed by CORS (none: CORS off)" },
  "log-level": { type: "string", default: "info", help: "pino log level" },
});

const opts = parseProcessFlags(flags, "nova-gateway", "The nova HTTP/JSON gateway.");
// Logs go to stderr, so stdout carries only the ready line.
const logger = pino(
  { level: opts.logLevel, redact: { paths: REDACTED_PATHS, censor: "[redacted]" } },
  pino.destination(2),
);

let storage: OpenStorage | undefined;
let star: RunningStar | undefined;
let stars = opts.stars;
if (stars.length === 0) {
  const dataDir = resolve(opts.dataDir);
  await mkdir(dataDir, { recursive: true });
  storage = await openStorage({ kind: "embedded", dataDir, bucket: "nova" });
  star = await startStar({ id: "embedded", listen: "127.0.0.1:0", store: storage.store, logger });
  stars = [star.address];
}

const metrics = createMetrics();
const fleet = new FleetClient({ stars, observer: metricsObserver(metrics) });
let draining = false;
const app = await buildApp({
  upstream: fleetUpstream(fleet),
  metrics,
  logger,
  bodyLimit: opts.bodyLimitMb * 1024 * 1024,
  inflightAppendBytes: opts.inflightAppendMb * 1024 * 1024,
  corsOrigins: opts.corsOrigins,
  draining: () => draining,
});
const url = await app.listen({ host: opts.host, port: opts.port });
process.stdout.write(`nova-gateway listening on ${url}\n`);

let stopping = false;
const stop = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  draining = true;
  logger.info({ signal }, "draining");
  await app.close();
  fleet.close();
  await star?.close();
  await storage?.close();
  process.exit(0);
};
process.on("SIGTERM", () => void stop("SIGTERM"));
process.on("SIGINT", () => void stop("SIGINT"));
