// `npm run bench:gateway`: one append workload two ways in one run, against one star process
// (embedded s3rver): through the gateway (its own process, `src/main.ts --stars`) over HTTP with
// an undici Pool, and as direct gRPC to the star (a bare HTTP/2 call, as the gateway makes its
// own: bench/bare-unary.ts). 1 KiB records, batches of 1 and 100,
// concurrency 1 and 64, CLASS_EXPRESS (so the star's storage does not hide the gateway's cost):
// appends/s, MB/s of record bodies, p50/p99 latency, the gateway/direct throughput ratio, and
// the CPU each process spent per append (Linux /proc): with every process on the same cores,
// that shows where the time goes. The `producer` path is the gateway with idempotent-producer
// headers (one producer per concurrent loop, docs/producers.md): its row against the plain
// gateway's is what exactly-once appends cost. The `ndjson` path sends the same appends as lines
// of NDJSON append sessions (one session per concurrent loop, held across the row, one line
// unanswered at a time), so its row against the unary one is what a request costs besides its
// batch. The `floor` path sends the unary appends to bench/append-floor.ts instead (its own
// process, in the gateway's column): Node's HTTP/1.1 server and the gateway's bare HTTP/2 call
// with nothing else, the floor under any Node front end of this design. After the rows, the
// gateway's CPU while idle (its timers and pings): 5 s to settle, then 10 s. For the gateway's paths, the full
// garbage collections it ran during the row (its /metrics, read outside the CPU figures).
// BENCH_SECONDS sets each row's length (default 3), BENCH_WARMUP_SECONDS the load on its stream
// before it is measured (default 3), BENCH_JIT_WARMUP_SECONDS the unmeasured load before the
// first row, every path and batch in turn (default 15); BENCH_PROFILE=DIR writes the gateway's CPU
// profile there; BENCH_BATCHES (default 1,100), BENCH_CONCURRENCY (1,64) and BENCH_PATHS
// (gateway,producer,ndjson,floor,direct) choose the rows, so a profile can hold one workload.
// BENCH_ROUNDS (default 1) runs each batch and concurrency's paths that many times, in turn
// forwards and backwards, each row on a stream of its own: the path run first in a run
// often reads high whatever it is (docs/benchmarks.md), and rounds put every path first and
// last alike in one run. The gateway and the floor run with `npm start`'s Node flags
// (BENCH_GATEWAY_NODE_ARGS replaces them), at BENCH_LOG_LEVEL (default warn: no line a
// request; `npm start`'s info logs one). Prints a table; no thresholds.

import "../scripts/help-first.ts";
import { mkdtemp, rm } from "node:fs/promises";
import http2 from "node:http2";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { PassThrough } from "node:stream";
import { Pool } from "undici";
import { call } from "../test/harness/grpc.ts";
import { metric } from "../test/harness/metrics.ts";
import { cpuSeconds } from "../test/harness/proc-stats.ts";
import { startProcess } from "../test/harness/process.ts";
import { startStarProcess } from "../test/harness/star-process.ts";
import { bareUnary } from "./bare-unary.ts";
import { GATEWAY_NODE_ARGS } from "./gateway-node-args.ts";
import { quantile } from "./stats.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
/**
 * Load on a row's own stream before it is measured. At 1 s the first path of each batch and
 * concurrency paid 50 to 90% more gateway CPU per append at 64 than the same path run second,
 * whichever it was; 3 s narrows that, and longer does not remove what is left of it in a run's
 * first row (BENCH_ROUNDS).
 */
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
/**
 * Load before the first row, every path and batch in turn. V8 is still optimizing the gateway's
 * code for several seconds of load (its compiler threads' CPU counts as the gateway's): with 3 s
 * of warm-up a row at 1 x 64 read 0.35 to 0.38 ms of gateway CPU per append, with 15 s 0.17 to
 * 0.24 (docs/benchmarks.md).
 */
const JIT_WARMUP_SECONDS = Number(process.env.BENCH_JIT_WARMUP_SECONDS ?? 15);
const PROFILE_DIR = process.env.BENCH_PROFILE;
const list = (name: string, fallback: string) => (process.env[name] ?? fallback).split(",");
const BATCHES = list("BENCH_BATCHES", "1,100").map(Number);
const CONCURRENCIES = list("BENCH_CONCURRENCY", "1,64").map(Number);
const PATHS = list("BENCH_PATHS", "gateway,producer,ndjson,floor,direct") as Path[];
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
if (!Number.isSafeInteger(ROUNDS) || ROUNDS < 1) {
  throw new Error(`BENCH_ROUNDS: expected an integer >= 1, got ${process.env.BENCH_ROUNDS}`);
}
type Path = "gateway" | "producer" | "ndjson" | "floor" | "direct";
const IDLE_SECONDS = 10;
const IDLE_SETTLE_SECONDS = 5;
const RECORD_BYTES = 1024;
const BODY = "x".repeat(RECORD_BYTES);

interface Result {
  appends: number;
  elapsed: number;
  latencies: number[];
  /** CPU ms per append: the front's (gateway or floor), the star's, and this process's (the client). */
  cpu: { gateway: number; star: number; client: number };
  /** Full collections the gateway ran during the row; undefined when it is not in front. */
  fullGcs?: number;
}

/** The gateway's full (major) garbage collections so far, from prom-client's GC histogram. */
function gatewayFullGcs(): Promise<number> {
  return metric(url, "nodejs_gc_duration_seconds_count", 'kind="major"');
}

/** A process's CPU time so far in ms (utime + stime), or NaN off Linux. */
function cpuMs(pid: number | undefined): number {
  try {
    return cpuSeconds(pid as number) * 1000;
  } catch {
    return Number.NaN;
  }
}

/** Runs `append` from `concurrency` loops until the deadline; returns every latency in ms. */
async function drive(
  front: number | undefined,
  concurrency: number,
  seconds: number,
  append: () => Promise<void>,
  countGcs = false,
): Promise<Result> {
  const latencies: number[] = [];
  const gcs0 = countGcs ? await gatewayFullGcs() : undefined;
  const cpu0 = { gateway: cpuMs(front), star: cpuMs(star.proc.child.pid) };
  const client0 = process.cpuUsage();
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        await append();
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const n = latencies.length;
  const client = process.cpuUsage(client0);
  const elapsed = (performance.now() - started) / 1000;
  const cpu = {
    gateway: (cpuMs(front) - cpu0.gateway) / n,
    star: (cpuMs(star.proc.child.pid) - cpu0.star) / n,
    client: (client.user + client.system) / 1000 / n,
  };
  const fullGcs = gcs0 === undefined ? undefined : (await gatewayFullGcs()) - gcs0;
  return { appends: n, elapsed, latencies, cpu, fullGcs };
}

const dir = await mkdtemp(join(tmpdir(), "nova-bench-gateway-"));
const star = await startStarProcess(["--data-dir", dir]);
const gatewayArgs = [
  ...(PROFILE_DIR ? ["--cpu-prof", "--cpu-prof-dir", PROFILE_DIR] : []),
  ...GATEWAY_NODE_ARGS,
  join(import.meta.dirname, "..", "src", "main.ts"),
  "--port",
  "0",
  "--stars",
  star.address,
  "--log-level",
  process.env.BENCH_LOG_LEVEL ?? "warn",
];
const gateway = await startProcess({
  command: process.execPath,
  args: gatewayArgs,
  readyLine: /^nova-gateway listening on (http:\/\/\S+)$/,
});
const url = gateway.match[1] as string;
const floor = PATHS.includes("floor")
  ? await startProcess({
      command: process.execPath,
      args: [...GATEWAY_NODE_ARGS, join(import.meta.dirname, "append-floor.ts"), star.address],
      readyLine: /^append floor listening on (http:\/\/\S+)$/,
    })
  : undefined;
const { client } = star;
// The direct path's one HTTP/2 session, as the gateway keeps one to each star.
const directSession = http2.connect(`http://${star.address}`);
// Keep-alive connections, one per concurrent request, as the direct path's one multiplexed
// session is: no row pays for connecting.
const poolsFor = (origin: string) =>
  new Map(CONCURRENCIES.map((c) => [c, new Pool(origin, { connections: c, pipelining: 1 })]));
const pools = poolsFor(url);
const floorPools = floor ? poolsFor(floor.match[1] as string) : new Map<number, Pool>();

try {
  await call(client, "CreateBucket", { name: "bench" });
  console.log(
    `gateway vs direct gRPC, appends of 1 KiB records, CLASS_EXPRESS, ${SECONDS} s per row`,
  );
  if (JIT_WARMUP_SECONDS > 0) await warmUp();
  console.log(
    "batch  conc  round  path        appends/s      MB/s   p50 ms   p99 ms   gateway/direct" +
      "   CPU ms/append: gateway   star  client   gateway full GCs",
  );
  for (const batch of BATCHES) {
    for (const concurrency of CONCURRENCIES) {
      for (let round = 1; round <= ROUNDS; round++) {
        await group(batch, concurrency, round);
      }
    }
  }
  // Idle once the rows are over and what they left (collections, closing connections) has
  // settled: measured at start, it would count the start-up's compilation and first collections.
  await new Promise((resolve) => setTimeout(resolve, IDLE_SETTLE_SECONDS * 1000));
  const idle0 = cpuMs(gateway.child.pid);
  await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
  const idle = (cpuMs(gateway.child.pid) - idle0) / IDLE_SECONDS;
  console.log(`gateway CPU while idle, after the rows: ${idle.toFixed(1)} ms per second`);
} finally {
  await Promise.all([...pools.values(), ...floorPools.values()].map((p) => p.close()));
  await floor?.kill("SIGTERM");
  client.close();
  directSession.close();
  // SIGINT skips the drain delay (nothing is in front of it), so the gateway exits well within
  // kill's timeout and --cpu-prof gets to write its profile; SIGTERM would drain for 10 s.
  await gateway.kill("SIGINT");
  await star.proc.kill("SIGTERM");
  await rm(dir, { recursive: true, force: true });
}

/** One path's appends of `batch` records on a new stream `key`, and the process in front. */
async function workload(path: Path, key: string, batch: number, concurrency: number) {
  await call(client, "CreateStream", {
    bucket: "bench",
    key,
    config: { class: "CLASS_EXPRESS" },
  });
  const sessions = path === "ndjson" ? openSessions(key, concurrency) : undefined;
  const append =
    path === "direct"
      ? directAppend(key, batch)
      : sessions
        ? sessionAppend(sessions, batch)
        : httpAppend(
            (path === "floor" ? floorPools : pools).get(concurrency) as Pool,
            key,
            batch,
            concurrency,
            path === "producer",
          );
  const front = (path === "floor" ? floor : gateway)?.child.pid;
  const gatewayInFront = path !== "floor" && path !== "direct";
  return { append, front, gatewayInFront, close: async () => sessions?.close() };
}

/**
 * Every path and batch in turn at the highest concurrency, unmeasured, for JIT_WARMUP_SECONDS in
 * all: the processes' code optimized before any row, as a gateway that has run a while has it.
 */
async function warmUp(): Promise<void> {
  const concurrency = Math.max(...CONCURRENCIES);
  const share = JIT_WARMUP_SECONDS / (PATHS.length * BATCHES.length);
  for (const batch of BATCHES) {
    for (const path of PATHS) {
      const load = await workload(path, `warm-${path}-${batch}`, batch, concurrency);
      try {
        await drive(load.front, concurrency, share, load.append);
      } finally {
        await load.close();
      }
    }
  }
}

/**
 * One batch and concurrency's rows: each path loaded on a stream of its own, in turn (backwards
 * in even rounds), then printed with the gateway/direct ratio of this round.
 */
async function group(batch: number, concurrency: number, round: number): Promise<void> {
  const rows: [Path, Result][] = [];
  for (const path of round % 2 === 1 ? PATHS : [...PATHS].reverse()) {
    const load = await workload(
      path,
      `${path}-${batch}-${concurrency}-${round}`,
      batch,
      concurrency,
    );
    try {
      await drive(load.front, concurrency, WARMUP_SECONDS, load.append);
      rows.push([
        path,
        await drive(load.front, concurrency, SECONDS, load.append, load.gatewayInFront),
      ]);
    } finally {
      await load.close();
    }
  }
  const rate = (r: Result) => r.appends / r.elapsed;
  const directRow = rows.find(([path]) => path === "direct")?.[1];
  for (const [path, result] of rows) {
    const sorted = result.latencies.sort((a, b) => a - b);
    const ratio = path !== "direct" && directRow ? (rate(result) / rate(directRow)).toFixed(2) : "";
    console.log(
      [
        String(batch).padStart(5),
        String(concurrency).padStart(5),
        String(round).padStart(6),
        `  ${path.padEnd(8)}`,
        rate(result).toFixed(0).padStart(11),
        ((rate(result) * batch * RECORD_BYTES) / 1e6).toFixed(1).padStart(9),
        quantile(sorted, 0.5).toFixed(2).padStart(8),
        quantile(sorted, 0.99).toFixed(2).padStart(8),
        ratio.padStart(16),
        // The direct path has no gateway in front: the idle gateway's CPU would read as its own.
        (path === "direct" ? "" : result.cpu.gateway.toFixed(2)).padStart(24),
        result.cpu.star.toFixed(2).padStart(6),
        result.cpu.client.toFixed(2).padStart(7),
        String(result.fullGcs ?? "").padStart(18),
      ].join(" "),
    );
  }
  const plain = rows.find(([path]) => path === "gateway")?.[1];
  const stamped = rows.find(([path]) => path === "producer")?.[1];
  if (plain && stamped) {
    const slower = (1 - rate(stamped) / rate(plain)) * 100;
    const cpu = (stamped.cpu.gateway / plain.cpu.gateway - 1) * 100;
    console.log(
      `                    producer headers: ${slower.toFixed(1)}% fewer appends/s, ${cpu.toFixed(1)}% more gateway CPU per append`,
    );
  }
}

function httpAppend(
  pool: Pool,
  key: string,
  batch: number,
  concurrency: number,
  asProducer: boolean,
): () => Promise<void> {
  const body = JSON.stringify({ records: Array.from({ length: batch }, () => ({ body: BODY })) });
  const path = `/v1/buckets/bench/streams/${key}/records`;
  // Producers not in a request: each call takes one, so a producer's seqs go out in order.
  const idle = Array.from({ length: concurrency }, (_, i) => ({ id: `bench-${i}`, seq: 0 }));
  return async () => {
    const producer = asProducer ? idle.pop() : undefined;
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (producer) {
      headers["nova-producer-id"] = producer.id;
      headers["nova-producer-epoch"] = "0";
      headers["nova-producer-seq"] = String(producer.seq++);
    }
    try {
      const res = await pool.request({ method: "POST", path, headers, body });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`append answered ${res.statusCode}: ${text}`);
    } finally {
      if (producer) idle.push(producer);
    }
  };
}

interface Session {
  send(line: string): Promise<void>;
}

interface Sessions {
  idle: Session[];
  close(): Promise<void>;
}

/** One NDJSON append session per concurrent loop, each on a connection of its own. */
function openSessions(key: string, concurrency: number): Sessions {
  const pool = new Pool(url, { connections: concurrency, pipelining: 1 });
  const ends: (() => Promise<void>)[] = [];
  const idle = Array.from({ length: concurrency }, (): Session => {
    const body = new PassThrough();
    // The session answers once it has its first line (docs/http-api.md).
    const response = pool.request({
      method: "POST",
      path: `/v1/buckets/bench/streams/${key}/records`,
      headers: { "content-type": "application/x-ndjson" },
      body,
    });
    response.catch(() => {});
    let lines: AsyncIterator<string> | undefined;
    const opened = async () => {
      const res = await response;
      if (res.statusCode !== 200) throw new Error(`session answered ${res.statusCode}`);
      return createInterface({ input: res.body })[Symbol.asyncIterator]();
    };
    ends.push(async () => {
      body.end();
      if (!lines) return;
      for (let line = await lines.next(); !line.done; line = await lines.next()) {
        if (!line.value.startsWith('{"end"')) throw new Error(`unexpected line: ${line.value}`);
      }
    });
    return {
      async send(line) {
        body.write(line);
        lines ??= await opened();
        const ack = await lines.next();
        if (ack.done || !ack.value.startsWith('{"start"')) {
          throw new Error(`session answered ${ack.done ? "nothing" : ack.value}`);
        }
      },
    };
  });
  return {
    idle,
    async close() {
      await Promise.all(ends.map((end) => end()));
      await pool.close();
    },
  };
}

function sessionAppend(sessions: Sessions, batch: number): () => Promise<void> {
  const line = `${JSON.stringify({ records: Array.from({ length: batch }, () => ({ body: BODY })) })}\n`;
  return async () => {
    const session = sessions.idle.pop() as Session;
    try {
      await session.send(line);
    } finally {
      sessions.idle.push(session);
    }
  };
}

function directAppend(key: string, batch: number): () => Promise<void> {
  const records = Array.from({ length: batch }, () => ({ body: Buffer.from(BODY) }));
  return async () => {
    await bareUnary(directSession, "Append", { bucket: "bench", key, records });
  };
}
