// Test support for catch-up reads: an object store (s3rver) as its own process, so that it can
// be stopped under a running star; gateways in this process over the real fleet client, with
// the object-storage path on or off; a stream written straight to a star; HTTP and metrics.
import assert from "node:assert/strict";
import pino from "pino";
import type { Counter } from "prom-client";
import { request } from "undici";
import { buildApp } from "../../src/app.ts";
import { FleetClient } from "../../src/fleet/fleet-client.ts";
import { fleetUpstream, metricsObserver } from "../../src/gateway/fleet-upstream.ts";
import type { DataPlaneServiceClient } from "../../src/gen/nova/v1/DataPlaneService.ts";
import { createMetrics, type GatewayMetrics } from "../../src/plugins/metrics.ts";
import {
  createReadService,
  DEFAULT_READPLAN_SETTINGS,
  type ReadPlanSettings,
} from "../../src/readplan/read-service.ts";
import { call } from "../harness/grpc.ts";
import { type RunningProcess, startProcess, tsxArgs } from "../harness/process.ts";

export interface Objstore {
  proc: RunningProcess;
  url: string;
  port: number;
}

/** `npm run objstore` on `dataDir` with `buckets`, on `port` (0: a free one). */
export async function startObjstore(
  dataDir: string,
  buckets: string[],
  port = 0,
): Promise<Objstore> {
  const [command, args] = tsxArgs("src/objstore/main.ts", [
    "--port",
    String(port),
    "--data-dir",
    dataDir,
    "--bucket",
    buckets.join(","),
  ]);
  const proc = await startProcess({ command, args, readyLine: /^(http:\/\/\S+:(\d+))$/ });
  return { proc, url: proc.match[1] as string, port: Number(proc.match[2]) };
}

export interface TestGateway {
  base: string;
  metrics: GatewayMetrics;
  close(): Promise<void>;
}

/** A gateway in this process; `readplan` false: every read goes through the stars. */
export async function startGateway(
  stars: string[],
  readplan: Partial<ReadPlanSettings> | false,
): Promise<TestGateway> {
  const metrics = createMetrics();
  const fleet = new FleetClient({ stars, observer: metricsObserver(metrics) });
  const upstream = fleetUpstream(fleet);
  const reads = createReadService({
    upstream,
    metrics: metrics.readplan,
    ...(readplan === false ? {} : { readplan: { ...DEFAULT_READPLAN_SETTINGS, ...readplan } }),
  });
  const app = await buildApp({
    upstream,
    reads,
    metrics,
    logger: pino({ level: process.env.TEST_GATEWAY_LOG ?? "silent" }),
    bodyLimit: 4 * 1024 * 1024,
    inflightAppendBytes: 64 * 1024 * 1024,
    corsOrigins: [],
  });
  const base = await app.listen({ host: "127.0.0.1", port: 0 });
  return {
    base,
    metrics,
    async close() {
      await app.close();
      await reads.close();
      fleet.close();
    },
  };
}

/** A counter's value for labels (0 when never counted). */
export async function count<L extends string>(
  counter: Counter<L>,
  labels: Partial<Record<L, string>>,
): Promise<number> {
  const { values } = await counter.get();
  return values
    .filter((v) =>
      Object.entries(labels).every(
        ([k, want]) => (v.labels as Record<string, unknown>)[k] === want,
      ),
    )
    .reduce((sum, v) => sum + v.value, 0);
}

export interface Got {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export async function get(base: string, path: string): Promise<Got> {
  const res = await request(base + path);
  return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
}

export async function createStream(client: DataPlaneServiceClient, bucket: string, key: string) {
  await call(client, "CreateBucket", { name: bucket });
  await call(client, "CreateStream", { bucket, key });
}

/** Record `i` of a test stream: UTF-8 text with some multi-byte characters, some headers. */
export function testRecord(i: number) {
  return {
    body: Buffer.from(`record ${i} ${"é✓".repeat(i % 3)}${"x".repeat(i % 17)}`),
    headers: i % 5 === 0 ? [{ name: Buffer.from("k"), value: Buffer.from(`v${i}`) }] : [],
  };
}

/**
 * Appends `batches` batches of `perBatch` records straight to the star, one chunk each, batch
 * `b` stamped `stampOf(b)`. Returns the next seq_num.
 */
export async function appendBatches(
  client: DataPlaneServiceClient,
  bucket: string,
  key: string,
  first: number,
  batches: number,
  perBatch: number,
  stampOf: (batch: number) => number,
): Promise<number> {
  let next = first;
  for (let b = 0; b < batches; b++) {
    const records = Array.from({ length: perBatch }, (_, i) => ({
      ...testRecord(next + i),
      timestamp_ms: String(stampOf(b)),
    }));
    const ack = await call(client, "Append", { bucket, key, records });
    assert.equal(ack.start?.seq_num, String(next));
    next += perBatch;
  }
  return next;
}

/** `src/main.ts` as a child process in front of `stars`, with more flags. */
export async function gatewayProcess(
  stars: string[],
  args: string[],
): Promise<{ base: string; proc: RunningProcess }> {
  const [command, argv] = tsxArgs("src/main.ts", [
    "--port",
    "0",
    "--stars",
    stars.join(","),
    "--log-level",
    "warn",
    ...args,
  ]);
  const proc = await startProcess({
    command,
    args: argv,
    readyLine: /^nova-gateway listening on (http:\/\/\S+)$/,
  });
  return { base: proc.match[1] as string, proc };
}

/** A sample's value from a Prometheus text page: the sum over series matching `labels`. */
export function scraped(page: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of page.split("\n")) {
    const m = /^([a-z_]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries(
      [...(m[2] ?? "").matchAll(/([a-z_]+)="([^"]*)"/g)].map((l) => [l[1], l[2]]),
    );
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) sum += Number(m[3]);
  }
  return sum;
}
