// Test support for the streaming tests: a gateway (in this process over the real fleet client, or
// as `src/main.ts` in a child process) in front of a real star process, and small HTTP helpers.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import pino from "pino";
import { request } from "undici";
import { type AppOptions, buildApp } from "../../src/app.ts";
import { FleetClient } from "../../src/fleet/fleet-client.ts";
import { fleetUpstream, metricsObserver } from "../../src/gateway/fleet-upstream.ts";
import { createMetrics } from "../../src/plugins/metrics.ts";
import { type RunningProcess, startProcess, tsxArgs } from "../harness/process.ts";

export interface Gateway {
  base: string;
  close(): Promise<void>;
}

/** The gateway app in this process, over the fleet client, on `port` (0: a free one). */
export async function inProcessGateway(
  stars: string[],
  options: Partial<AppOptions> = {},
  port = 0,
): Promise<Gateway> {
  const metrics = createMetrics();
  const fleet = new FleetClient({ stars, observer: metricsObserver(metrics) });
  const app = await buildApp({
    upstream: fleetUpstream(fleet),
    metrics,
    logger: pino({ level: process.env.TEST_GATEWAY_LOG ?? "silent" }),
    bodyLimit: 4 * 1024 * 1024,
    inflightAppendBytes: 64 * 1024 * 1024,
    corsOrigins: [],
    ...options,
  });
  const base = await app.listen({ host: "127.0.0.1", port });
  return {
    base,
    async close() {
      await app.close();
      fleet.close();
    },
  };
}

export interface GatewayProcess extends Gateway {
  proc: RunningProcess;
  /** The gateway process's resident set size now, bytes (from /proc). */
  rss(): number;
}

/** `src/main.ts` as a child process in front of `stars`, with more flags. */
export async function gatewayProcess(
  stars: string[],
  args: string[] = [],
): Promise<GatewayProcess> {
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

export async function http(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const res = await request(base + path, {
    method: method as "GET",
    headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.body.text();
  const isJson = String(res.headers["content-type"] ?? "").includes("json");
  return {
    status: res.statusCode,
    headers: res.headers,
    text,
    json: isJson && text ? JSON.parse(text) : undefined,
  };
}

let streams = 0;
/** A new bucket with one stream; returns the stream's path. */
export async function newStream(base: string, config: Record<string, unknown> = {}) {
  const name = `st-${process.pid}-${++streams}`;
  const b = await http(base, "POST", "/v1/buckets", { name });
  assert.equal(b.status, 201, b.text);
  const s = await http(base, "POST", `/v1/buckets/${name}/streams`, { key: "s", ...config });
  assert.equal(s.status, 201, s.text);
  return `/v1/buckets/${name}/streams/s`;
}

/** Appends one batch of text bodies; returns the ack. */
export async function append(base: string, stream: string, bodies: string[], query = "") {
  const res = await http(base, "POST", `${stream}/records${query}`, {
    records: bodies.map((body) => ({ body })),
  });
  assert.equal(res.status, 200, res.text);
  return res.json as { start: { seq_num: number }; end: { seq_num: number } };
}

/** One sample of a metric from /metrics (summed over its label sets matching `labels`). */
export async function metric(base: string, name: string, labels = ""): Promise<number> {
  const res = await http(base, "GET", "/metrics");
  let sum = 0;
  for (const line of res.text.split("\n")) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    if (!(rest.startsWith(" ") || rest.startsWith("{"))) continue;
    if (labels && !rest.includes(labels)) continue;
    sum += Number(line.split(" ").at(-1));
  }
  return sum;
}
