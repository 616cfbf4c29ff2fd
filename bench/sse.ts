// `npm run bench:sse`: SSE fan-out through the gateway (`src/main.ts` as a child process, a fresh
// one per row so its RSS baseline is clean, in front of one star process). For 100, 1000 and
// 5000 subscribers, all on one stream and spread over 100 streams: the append's own latency
// (start to ack), the latency from starting an append to each subscriber's event (p50, p99, max
// over every subscriber and record), and the gateway's RSS growth per subscriber. Prints a
// table; no thresholds. BENCH_SIZES=100,1000 and BENCH_ROUNDS=20 change the matrix.

import { mkdtemp, rm } from "node:fs/promises";
import { Agent, get, type IncomingMessage } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { request } from "undici";
import { type GatewayProcess, gatewayProcess } from "../test/harness/gateway.ts";
import { metric } from "../test/harness/metrics.ts";
import { startStarProcess } from "../test/harness/star-process.ts";

const SIZES = (process.env.BENCH_SIZES ?? "100,1000,5000").split(",").map(Number);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
/** Subscribers connecting at once (a burst of thousands overflows the listen backlog). */
const CONNECT_CONCURRENCY = 200;
const ROUND_TIMEOUT_MS = 60_000;

const dir = await mkdtemp(join(tmpdir(), "nova-bench-sse-"));
const star = await startStarProcess(["--data-dir", dir]);
let gw: GatewayProcess;
const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });

/** One SSE connection that notes when each seq_num arrives (from the batch ids). */
class Subscriber {
  readonly arrivals = new Float64Array(ROUNDS).fill(Number.NaN);
  #res: IncomingMessage | undefined;
  #buffer = "";
  #next = 0;
  #caughtUp: () => void = () => {};
  readonly caughtUp = new Promise<void>((resolve) => {
    this.#caughtUp = resolve;
  });

  readonly url: string;

  constructor(url: string) {
    this.url = url;
  }

  open(): Promise<void> {
    return new Promise((resolve, reject) => {
      const req = get(this.url, { agent, headers: { accept: "text/event-stream" } }, (res) => {
        this.#res = res;
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => this.#onData(chunk));
        res.on("error", () => {});
        resolve();
      });
      req.on("error", reject);
    });
  }

  get seen(): number {
    return this.#next;
  }

  close(): void {
    this.#res?.destroy();
  }

  #onData(chunk: string): void {
    const now = performance.now();
    this.#buffer += chunk;
    const lines = this.#buffer.split("\n");
    this.#buffer = lines.pop() ?? "";
    for (const line of lines) {
      if (line === "event: ping") this.#caughtUp();
      if (!line.startsWith("id: ")) continue;
      // id: <last seq_num>,<count>,<bytes>: every record up to it has arrived.
      const last = Number(line.slice(4, line.indexOf(",")));
      for (; this.#next <= last && this.#next < ROUNDS; this.#next++)
        this.arrivals[this.#next] = now;
    }
  }
}

async function post(path: string, body: unknown): Promise<number> {
  const res = await request(`${gw.base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${path}: ${res.statusCode} ${text}`);
  return performance.now();
}

async function inBatches<T>(items: T[], size: number, fn: (item: T) => Promise<unknown>) {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(fn));
}

async function waitUntil(cond: () => boolean, what: string): Promise<void> {
  const deadline = performance.now() + ROUND_TIMEOUT_MS;
  while (!cond()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

function quantile(sorted: Float64Array, q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);

let scenario = 0;
async function run(subscribers: number, streamCount: number): Promise<string> {
  gw = await gatewayProcess([star.address]);
  try {
    return await measure(subscribers, streamCount);
  } finally {
    await gw.close();
  }
}

async function measure(subscribers: number, streamCount: number): Promise<string> {
  const bucket = `bench-${++scenario}`;
  await post("/v1/buckets", { name: bucket });
  const streams = Array.from(
    { length: streamCount },
    (_, i) => `/v1/buckets/${bucket}/streams/s${i}`,
  );
  await inBatches(streams, 20, (s) =>
    post(`/v1/buckets/${bucket}/streams`, { key: s.split("/").at(-1) }),
  );

  const baseline = gw.rss();
  const subs = Array.from(
    { length: subscribers },
    (_, i) => new Subscriber(`${gw.base}${streams[i % streamCount]}/records?seq_num=0`),
  );
  const connectStart = performance.now();
  await inBatches(subs, CONNECT_CONCURRENCY, async (s) => {
    await s.open();
    await s.caughtUp;
  });
  const connectMs = performance.now() - connectStart;
  const open = gw.rss();
  let peak = open;

  // Each round appends one record to every stream and waits for every subscriber to get it.
  const started = streams.map(() => new Float64Array(ROUNDS));
  const acked = streams.map(() => new Float64Array(ROUNDS));
  for (let round = 0; round < ROUNDS; round++) {
    await Promise.all(
      streams.map(async (s, i) => {
        (started[i] as Float64Array)[round] = performance.now();
        (acked[i] as Float64Array)[round] = await post(`${s}/records`, {
          records: [{ body: `r${round}` }],
        });
      }),
    );
    await waitUntil(() => subs.every((s) => s.seen > round), `round ${round}`);
    peak = Math.max(peak, gw.rss());
  }

  const appends = new Float64Array(streamCount * ROUNDS);
  started.forEach((t0, i) => {
    const ack = acked[i] as Float64Array;
    for (let r = 0; r < ROUNDS; r++)
      appends[i * ROUNDS + r] = (ack[r] as number) - (t0[r] as number);
  });
  appends.sort();
  const events = new Float64Array(subscribers * ROUNDS);
  subs.forEach((s, i) => {
    const t0 = started[i % streamCount] as Float64Array;
    for (let r = 0; r < ROUNDS; r++) {
      events[i * ROUNDS + r] = (s.arrivals[r] as number) - (t0[r] as number);
    }
  });
  events.sort();
  for (const s of subs) s.close();
  const drained = performance.now() + ROUND_TIMEOUT_MS;
  while ((await metric(gw.base, "nova_gateway_upstream_subscribe_calls")) > 0) {
    if (performance.now() > drained) throw new Error("upstream calls did not end");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return [
    String(subscribers).padStart(11),
    (streamCount === 1 ? "1 stream" : `${streamCount} streams`).padStart(11),
    (connectMs / 1000).toFixed(1).padStart(10),
    quantile(appends, 0.5).toFixed(1).padStart(10),
    quantile(events, 0.5).toFixed(1).padStart(8),
    quantile(events, 0.99).toFixed(1).padStart(8),
    (events[events.length - 1] ?? Number.NaN).toFixed(1).padStart(8),
    mib(baseline).padStart(9),
    mib(peak).padStart(9),
    ((peak - baseline) / subscribers / 1024).toFixed(1).padStart(13),
  ].join(" ");
}

try {
  console.log(
    `SSE fan-out through the gateway: ${ROUNDS} records per stream; event latency from the append's start`,
  );
  console.log(
    "subscribers     layout  connect s  append p50   p50 ms   p99 ms   max ms  RSS0 MiB  peak MiB  KiB/subscriber",
  );
  for (const n of SIZES) {
    for (const streamCount of [1, 100]) {
      try {
        console.log(await run(n, streamCount));
      } catch (err) {
        console.log(
          `${String(n).padStart(11)} ${String(streamCount).padStart(11)}  failed: ${String(err)}`,
        );
      }
    }
  }
} finally {
  agent.destroy();
  star.client.close();
  await star.proc.kill("SIGTERM");
  await rm(dir, { recursive: true, force: true });
}
