// `npm run bench:sse`: SSE fan-out through the gateway, with subscribers held by separate client
// processes (bench/sse-subscribers.ts, BENCH_WORKERS of them, default 4) and, when nginx and its
// nchan module are installed, the same load on nginx + nchan as an anchor.
//
// The matrix: BENCH_SIZES subscribers (default 1000,10000), all on 1 stream and spread over 100
// streams (subscriber i on stream i mod 100); for each, the systems of BENCH_SYSTEMS (default
// on,nchan): the gateway with --subscribe-sharing=on (and =off, `off`), then nchan (one channel
// per stream). Every row gets fresh processes: a star
// (`src/star/main.ts --data-dir`), a gateway (`src/main.ts`) in front of it, or an nginx, so RSS
// baselines are clean. A row: BENCH_JIT_WARMUP_SECONDS (default 15) of the same rounds on other
// streams, with subscribers on them, unmeasured (JIT_WARMUP_S below; it leaves the gateway's heap
// grown, so the row's RSS per subscriber counts only growth beyond it); WARMUP_ROUNDS rounds of
// appends with no subscriber (the idle append latency), then the subscribers connect (each from
// the tail; a nova subscriber is ready at its caught-up `event: ping`), then BENCH_ROUNDS
// (default 20) rounds at 10/s (BENCH_INTERVAL_MS apart, default 100), each appending one 1 KiB
// record to every stream at once (POST .../records through the gateway, or POST to nchan's
// publisher location), one round after the previous one's acks.
//
// Printed per row: the append latency p50 (start to ack) without and with subscribers; the
// latency from an append's start to each subscriber's event, p50/p99/max over every (subscriber,
// record), and its p99 from when the append's round was due (rounds late behind a server that
// cannot keep the rate count their lateness); records missed or seen twice; the server's RSS
// growth per subscriber (VmRSS of the gateway, or of the nginx worker, after connecting minus
// before); the gateway's
// nova_gateway_upstream_subscribe_calls while connected; the CPU seconds (utime + stime) of the
// star and of the gateway (or nginx worker) from before connecting until the last delivery.
// The idle row (BENCH_IDLE subscribers, default 18000, 0 skips): they connect as fast as they can
// and then get pings only; printed: connections per second and RSS per subscriber, after
// connecting and after one ping period (the larger). The workers row (BENCH_MULTI=W:N, default
// 2:20000, empty skips): N subscribers on 1 stream with `--workers W` (nginx: worker_processes
// W). BENCH_GATEWAY_WORKERS (default 1) sets the workers of the matrix's rows. With several
// workers the server's RSS and CPU are its whole process tree's. Each client process connects
// from its own source address (127.0.0.2, .3, ...). BENCH_GATEWAY_ARGS adds gateway flags,
// BENCH_GATEWAY_NODE_ARGS Node's own flags for the gateway process (default: `npm start`'s,
// --max-semi-space-size=16).
// BENCH_PER_ROUND=1 prints each row's rounds as well: when the round started, its appends' acks
// (p50, last) and its events' arrivals (first, p50, p99, last), in ms from the row's first round.
// Then a table of every row, nova and nchan next to each other. No thresholds.
//
// Every process runs with its file-descriptor limit raised (`ulimit -n 65536`, or the hard limit
// when that is lower): a subscriber is a socket in the gateway (or nginx) and in a worker.

import "../scripts/help-first.ts";
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { accessSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { Pool } from "undici";
import { metric } from "../test/harness/metrics.ts";
import { freePort } from "../test/harness/ports.ts";
import { cpuSeconds, rssBytes } from "../test/harness/proc-stats.ts";
import { type RunningProcess, startProcess } from "../test/harness/process.ts";
import { type StarProcess, startStarProcess } from "../test/harness/star-process.ts";
import { GATEWAY_NODE_ARGS } from "./gateway-node-args.ts";
import { quantile } from "./stats.ts";

const SIZES = (process.env.BENCH_SIZES ?? "1000,10000").split(",").map(Number);
const SYSTEMS = (process.env.BENCH_SYSTEMS ?? "on,nchan").split(",") as System[];
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 4);
const LAYOUTS = (process.env.BENCH_LAYOUTS ?? "1,100").split(",").map(Number);
const GATEWAY_WORKERS = Number(process.env.BENCH_GATEWAY_WORKERS ?? 1);
const IDLE = Number(process.env.BENCH_IDLE ?? 18_000);
const MULTI = (process.env.BENCH_MULTI ?? "2:20000").split(":").filter(Boolean).map(Number);
/** More gateway flags for every nova row (e.g. `--hub-fanout-slice 64`). */
const GATEWAY_ARGS = (process.env.BENCH_GATEWAY_ARGS ?? "").split(" ").filter(Boolean);
/** How long the idle row holds its subscribers: one ping period (15 s) and some. */
const IDLE_HOLD_MS = 20_000;
/**
 * Rounds appended before the subscribers connect, which give the idle append latency (the
 * baseline of "appends within 2x while connected": 50, so one stream's has 50 samples); the
 * subscribers then read from the round after them.
 */
const WARMUP_ROUNDS = 50;
/**
 * Seconds of rounds before a row's own (BENCH_JIT_WARMUP_SECONDS, default 15; 0 skips): on
 * streams apart from the row's, with up to WARM_SUBSCRIBERS subscribers, so that a fresh
 * gateway's appends and fan-out run compiled code in the row, as a gateway that has been up a
 * while does (V8 still compiles the hot paths some seconds into a load, docs/subscriptions.md).
 */
const JIT_WARMUP_S = Number(process.env.BENCH_JIT_WARMUP_SECONDS ?? 15);
const WARM_SUBSCRIBERS = 1000;
/** The warm-up's stream indices start here, after any row's. */
const WARM_STREAMS_FROM = 1000;
/** Between the starts of two rounds (BENCH_INTERVAL_MS, default 100: 10 rounds a second). */
const INTERVAL_MS = Number(process.env.BENCH_INTERVAL_MS ?? 100);
const RECORD_BYTES = 1024;
/** Subscribers each worker connects at once (a burst of thousands overflows the listen backlog). */
const CONNECT_CONCURRENCY = 100;
const CONNECT_TIMEOUT_MS = 180_000;
/** After the last round, how long the subscribers may go without a record, and in all. */
const DELIVERY_IDLE_MS = 15_000;
const DELIVERY_CAP_MS = 240_000;
const WANT_FDS = 65536;
const NGINX = process.env.BENCH_NGINX ?? "/usr/sbin/nginx";
/** A directory for each gateway's CPU profile (`node --cpu-prof`), written when it stops. */
const PROFILE_DIR = process.env.BENCH_PROFILE;
const PER_ROUND = process.env.BENCH_PER_ROUND === "1";
const NCHAN = "/usr/lib/nginx/modules/ngx_nchan_module.so";
const ULIMIT = `ulimit -n ${WANT_FDS} 2>/dev/null || ulimit -n hard`;
/** The limit every process of the bench gets. */
const FD_LIMIT = Number(
  execFileSync("bash", ["-c", `${ULIMIT}; ulimit -n`])
    .toString()
    .trim(),
);

type System = "on" | "off" | "nchan";

interface Row {
  subscribers: number;
  streams: number;
  system: System;
  /** Server worker processes. */
  workers: number;
  /** Pings only: no appends while connected. */
  idle?: boolean;
  failed?: string;
  connectS?: number;
  roundsPerS?: number;
  appendIdleP50?: number;
  appendP50?: number;
  event?: { p50: number; p99: number; max: number; p99Due: number };
  missed?: number;
  repeated?: number;
  kibPerSubscriber?: number;
  upstreamCalls?: number;
  starCpuS?: number;
  serverCpuS?: number;
  /** The server's CPU while the subscribers connected. */
  connectCpuS?: number;
  /** The server's CPU while idle subscribers were held. */
  idleCpuS?: number;
  clientCpuS?: number;
  /** Records delivered to subscribers (every (subscriber, record) seen). */
  delivered?: number;
}

const wallNow = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function withFdLimit(command: string, args: string[]): [string, string[]] {
  return ["bash", ["-c", `${ULIMIT}; exec "$0" "$@"`, command, ...args]];
}

/** Processes' resident set size, KiB (VmRSS), summed. */
function rssKib(pids: number[]): number {
  return pids.reduce((kib, pid) => kib + rssBytes(pid) / 1024, 0);
}

/** A process's children. */
function childPids(pid: number): number[] {
  const text = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim();
  return text ? text.split(" ").map(Number) : [];
}

/** A process and its descendants. */
function treePids(pid: number): number[] {
  return [pid, ...childPids(pid).flatMap(treePids)];
}

/** How many file descriptors processes have open, in all. */
function fdCount(pids: number[]): number {
  return pids.reduce((n, pid) => n + readdirSync(`/proc/${pid}/fd`).length, 0);
}

/** Processes' CPU time so far, s (utime + stime), summed. */
function cpuS(pids: number[]): number {
  return pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
}

function exists(path: string): boolean {
  try {
    accessSync(path);
    return true;
  } catch {
    return false;
  }
}

// ---- the subscriber processes -------------------------------------------------------------

const workerChildren = new Set<ChildProcess>();
/** Temp dirs of rows in progress, removed also when the bench is interrupted. */
const tempDirs = new Set<string>();
function cleanUp(): void {
  killWorkers();
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
}
function killWorkers(): void {
  for (const child of workerChildren) {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
    } catch {}
  }
  workerChildren.clear();
}
process.on("exit", cleanUp);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    process.exit(130);
  });
}

interface Report {
  arrivals: Float64Array;
  failed: number;
  ended: number;
  repeated: number;
  extra: number;
  errors: string[];
  gaveUp: boolean;
  cpuS: number;
}

class SubscriberProcess {
  readonly child: ChildProcess;
  readonly #messages: Record<string, unknown>[] = [];
  #wake: () => void = () => {};
  #exited = false;

  constructor() {
    const [command, args] = withFdLimit(process.execPath, [
      resolve(import.meta.dirname, "sse-subscribers.ts"),
    ]);
    this.child = spawn(command, args, { detached: true, stdio: ["pipe", "pipe", "inherit"] });
    workerChildren.add(this.child);
    const lines = createInterface({ input: this.child.stdout as NodeJS.ReadableStream });
    lines.on("line", (line) => {
      this.#messages.push(JSON.parse(line) as Record<string, unknown>);
      this.#wake();
    });
    this.child.once("exit", () => {
      this.#exited = true;
      this.#wake();
    });
  }

  send(cmd: object): void {
    this.child.stdin?.write(`${JSON.stringify(cmd)}\n`);
  }

  async next(type: string, timeoutMs: number): Promise<Record<string, unknown>> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const i = this.#messages.findIndex((m) => m.type === type);
      if (i >= 0) return this.#messages.splice(i, 1)[0] as Record<string, unknown>;
      if (this.#exited) throw new Error(`a subscriber process exited before its ${type}`);
      const left = deadline - performance.now();
      if (left <= 0) throw new Error(`no ${type} from a subscriber process in ${timeoutMs} ms`);
      await new Promise<void>((wake) => {
        const timer = setTimeout(wake, left);
        this.#wake = () => {
          clearTimeout(timer);
          wake();
        };
      });
    }
  }

  async report(): Promise<Report> {
    this.send({ cmd: "await", idleMs: DELIVERY_IDLE_MS, capMs: DELIVERY_CAP_MS });
    const m = await this.next("report", DELIVERY_CAP_MS + 30_000);
    const bytes = Buffer.from(m.arrivals as string, "base64");
    return {
      arrivals: new Float64Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 8),
      failed: m.failed as number,
      ended: m.ended as number,
      repeated: m.repeated as number,
      extra: m.extra as number,
      errors: m.errors as string[],
      gaveUp: m.gaveUp as boolean,
      cpuS: m.cpuS as number,
    };
  }

  kill(): void {
    try {
      if (this.child.pid !== undefined) process.kill(-this.child.pid, "SIGKILL");
    } catch {}
    workerChildren.delete(this.child);
  }
}

// ---- the systems under test -----------------------------------------------------------------

/** What a row drives: a gateway over a star, or nginx + nchan. */
interface Target {
  /** The processes whose RSS and CPU count as the server's. */
  serverPids(): number[];
  starPid: number | undefined;
  /** Creates streams `from` to `from + streams - 1` (channels need nothing). */
  setup(streams: number, from?: number): Promise<void>;
  /** The SSE URL of stream i. */
  subscribeUrl(i: number): string;
  /** Appends one record to stream i; `tag` starts its body. */
  append(i: number, tag: string): Promise<void>;
  /** Called once every subscriber is ready: waits until the server counts them, says what it has. */
  connected(subscribers: number): Promise<{ upstreamCalls?: number; note: string }>;
  close(): Promise<void>;
}

function body(tag: string): string {
  return tag + "x".repeat(RECORD_BYTES - tag.length);
}

let scenario = 0;

async function novaTarget(
  sharing: "on" | "off",
  subscribers: number,
  workers: number,
): Promise<Target> {
  const dir = await mkdtemp(join(tmpdir(), "nova-bench-sse-"));
  tempDirs.add(dir);
  let star: StarProcess | undefined;
  let gateway: RunningProcess | undefined;
  let pool: Pool | undefined;
  const close = async () => {
    await pool?.close();
    await gateway?.kill("SIGTERM");
    star?.client.close();
    await star?.proc.kill("SIGTERM");
    await rm(dir, { recursive: true, force: true });
    tempDirs.delete(dir);
  };
  try {
    // Without sharing every subscriber is a Subscribe at the star: its cap must hold them.
    star = await startStarProcess(["--data-dir", dir], {
      args: ["--max-subscriptions", String(Math.max(10_000, 2 * subscribers))],
    });
    const [command, args] = withFdLimit(process.execPath, [
      ...(PROFILE_DIR ? ["--cpu-prof", "--cpu-prof-dir", PROFILE_DIR] : []),
      ...GATEWAY_NODE_ARGS,
      resolve("src/main.ts"),
      ...["--port", "0", "--stars", star.address, "--log-level", "warn"],
      ...["--drain-delay-ms", "0", `--subscribe-sharing=${sharing}`],
      // Its subscribers come from a few source addresses, thousands from each.
      ...["--max-sessions-per-client", "1000000"],
      ...(workers > 1 ? ["--workers", String(workers)] : []),
      ...GATEWAY_ARGS,
    ]);
    gateway = await startProcess({
      command,
      args,
      readyLine: /^nova-gateway listening on (http:\/\/\S+)$/,
    });
    const base = gateway.match[1] as string;
    const gatewayPid = gateway.child.pid as number;
    pool = new Pool(base, { connections: 128 });
    const client = pool;
    const bucket = `bench-${++scenario}`;
    const post = async (path: string, payload: unknown) => {
      const res = await client.request({
        method: "POST",
        path,
        headers: { "content-type": "application/json" },
        body: JSON.stringify(payload),
      });
      const text = await res.body.text();
      if (res.statusCode >= 300) throw new Error(`POST ${path}: ${res.statusCode} ${text}`);
    };
    const streamPath = (i: number) => `/v1/buckets/${bucket}/streams/s${i}`;
    const starPid = star.proc.child.pid as number;
    return {
      serverPids: () => treePids(gatewayPid),
      starPid,
      async setup(streams, from = 0) {
        if (from === 0) await post("/v1/buckets", { name: bucket });
        for (let i = 0; i < streams; i += 20) {
          await Promise.all(
            Array.from({ length: Math.min(20, streams - i) }, (_, j) =>
              post(`/v1/buckets/${bucket}/streams`, { key: `s${from + i + j}` }),
            ),
          );
        }
      },
      subscribeUrl: (i) => `${base}${streamPath(i)}/records?seq_num=${WARMUP_ROUNDS}`,
      append: (i, tag) => post(`${streamPath(i)}/records`, { records: [{ body: body(tag) }] }),
      async connected() {
        const [calls, hubs, hubSubscribers] = await Promise.all([
          metric(base, "nova_gateway_upstream_subscribe_calls"),
          metric(base, "nova_gateway_hubs"),
          metric(base, "nova_gateway_hub_subscribers"),
        ]);
        return { upstreamCalls: calls, note: `hubs ${hubs}, hub subscribers ${hubSubscribers}` };
      },
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

async function nchanTarget(subscribers: number, workers: number): Promise<Target> {
  const dir = await mkdtemp(join(tmpdir(), "nova-bench-nchan-"));
  tempDirs.add(dir);
  let nginx: RunningProcess | undefined;
  let pool: Pool | undefined;
  const close = async () => {
    await pool?.close();
    await nginx?.kill("SIGTERM");
    await rm(dir, { recursive: true, force: true });
    tempDirs.delete(dir);
  };
  try {
    const port = await freePort();
    // worker_connections for every subscriber in each worker: workers race for new connections,
    // and one that took more than its share closed the rest ("other side closed").
    const config = `
load_module ${NCHAN};
worker_processes ${workers};
worker_rlimit_nofile ${FD_LIMIT};
daemon off;
master_process on;
error_log ${dir}/error.log warn;
pid ${dir}/nginx.pid;
events { worker_connections ${Math.min(FD_LIMIT - 100, subscribers + 1024)}; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  server {
    listen 127.0.0.1:${port} backlog=4096;
    location ~ ^/pub/(\\w+)$ {
      nchan_publisher;
      nchan_channel_id $1;
      nchan_message_buffer_length 64;
    }
    location ~ ^/sub/(\\w+)$ {
      nchan_subscriber eventsource;
      nchan_channel_id $1;
      nchan_subscriber_first_message newest;
    }
  }
}
`;
    const file = join(dir, "nginx.conf");
    await writeFile(file, config);
    const nginxArgs = `-p "${dir}" -c "${file}" -e "${dir}/error.log"`;
    nginx = await startProcess({
      command: "bash",
      args: [
        "-c",
        `${ULIMIT}; ${NGINX} -q -t ${nginxArgs} && echo ready && exec ${NGINX} ${nginxArgs}`,
      ],
      readyLine: /^ready$/,
    });
    const master = nginx.child.pid as number;
    const base = `http://127.0.0.1:${port}`;
    pool = new Pool(base, { connections: 128 });
    const client = pool;
    const channelInfo = async (i: number) => {
      const res = await client.request({
        method: "GET",
        path: `/pub/c${i}`,
        headers: { accept: "text/json" },
      });
      const text = await res.body.text();
      return res.statusCode === 200 ? (JSON.parse(text) as { subscribers: number }) : undefined;
    };
    // The master is up once it answers; its workers are its children.
    for (let tries = 0; ; tries++) {
      try {
        await channelInfo(0);
        break;
      } catch (err) {
        if (tries > 100) throw err;
        await sleep(50);
      }
    }
    let streamCount = 0;
    return {
      serverPids: () => childPids(master),
      starPid: undefined,
      async setup(streams, from = 0) {
        if (from === 0) streamCount = streams;
      },
      subscribeUrl: (i) => `${base}/sub/c${i}`,
      async append(i, tag) {
        const res = await client.request({
          method: "POST",
          path: `/pub/c${i}`,
          headers: { "content-type": "text/plain" },
          body: body(tag),
        });
        const text = await res.body.text();
        if (res.statusCode >= 300) throw new Error(`nchan publish: ${res.statusCode} ${text}`);
      },
      async connected(want) {
        // Every subscriber has its first bytes; wait until nchan counts them all.
        let have = 0;
        for (let tries = 0; tries < 100; tries++) {
          const infos = await Promise.all(
            Array.from({ length: streamCount }, (_, i) => channelInfo(i)),
          );
          have = infos.reduce((sum, info) => sum + (info?.subscribers ?? 0), 0);
          if (have >= want) break;
          await sleep(100);
        }
        return { note: `nchan counts ${have} subscribers` };
      },
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

// ---- one row ----------------------------------------------------------------------------------

/**
 * ROUNDS rounds, INTERVAL_MS apart, each one append to every stream; the start and ack time of
 * each, and when each round was due (wall clock): a round that starts late, after the one before
 * it was acked, started after its time.
 */
async function appendRounds(target: Target, streams: number, rounds: number, tag: string) {
  const started = Array.from({ length: streams }, () => new Float64Array(rounds));
  const acked = Array.from({ length: streams }, () => new Float64Array(rounds));
  const t0 = performance.now();
  const due = Float64Array.from({ length: rounds }, (_, r) => wallNow() + r * INTERVAL_MS);
  let lastStart = t0;
  for (let r = 0; r < rounds; r++) {
    const wait = t0 + r * INTERVAL_MS - performance.now();
    if (wait > 0) await sleep(wait);
    lastStart = performance.now();
    await Promise.all(
      Array.from({ length: streams }, async (_, i) => {
        (started[i] as Float64Array)[r] = wallNow();
        await target.append(i, `${tag}${r}:`);
        (acked[i] as Float64Array)[r] = wallNow();
      }),
    );
  }
  const seconds = (performance.now() - t0) / 1000;
  /** Rounds started per second (10 when no round overran its 100 ms). */
  const rate = rounds > 1 ? ((rounds - 1) * 1000) / (lastStart - t0) : Number.NaN;
  const latencies = new Float64Array(streams * rounds);
  for (let i = 0; i < streams; i++) {
    for (let r = 0; r < rounds; r++) {
      latencies[i * rounds + r] =
        ((acked[i] as Float64Array)[r] as number) - ((started[i] as Float64Array)[r] as number);
    }
  }
  return { started, acked, due, latencies: latencies.sort(), seconds, rate };
}

/** BENCH_PER_ROUND: each round's start, acks and arrivals, in ms from the first round's start. */
function printRounds(
  live: { started: Float64Array[]; acked: Float64Array[] },
  reports: { arrivals: Float64Array }[],
  shares: number[][],
): void {
  const t0 = Math.min(...live.started.map((s) => s[0] as number));
  const ms = (sorted: Float64Array, q: number) => (quantile(sorted, q) - t0).toFixed(0).padStart(6);
  for (let r = 0; r < ROUNDS; r++) {
    const started = Math.min(...live.started.map((s) => s[r] as number));
    const acks = Float64Array.from(live.acked, (s) => s[r] as number).sort();
    const arrivals: number[] = [];
    reports.forEach((report, w) => {
      for (let k = 0; k < (shares[w] as number[]).length; k++) {
        const at = report.arrivals[k * ROUNDS + r] as number;
        if (!Number.isNaN(at)) arrivals.push(at);
      }
    });
    const arrived = Float64Array.from(arrivals).sort();
    console.log(
      `    round ${String(r).padStart(3)}: started ${(started - t0).toFixed(0).padStart(6)}, ` +
        `${acks.length} acks p50 ${ms(acks, 0.5)} last ${ms(acks, 1)}, ` +
        `${arrived.length} events first ${ms(arrived, 0)} p50 ${ms(arrived, 0.5)} ` +
        `p99 ${ms(arrived, 0.99)} last ${ms(arrived, 1)}`,
    );
  }
}

/**
 * JIT_WARMUP_S of rounds on the warm-up's streams (as many as the row's), with subscribers on
 * them from one client process; nothing of it is measured.
 */
async function warmUp(target: Target, spec: RowSpec): Promise<void> {
  const rounds = Math.round((JIT_WARMUP_S * 1000) / INTERVAL_MS);
  if (rounds === 0 || spec.idle) return;
  const { streams } = spec;
  await target.setup(streams, WARM_STREAMS_FROM);
  const warm: Target = {
    ...target,
    append: (i, tag) => target.append(WARM_STREAMS_FROM + i, tag),
  };
  await appendRounds(warm, streams, WARMUP_ROUNDS, "w");
  const subscribers = Math.min(WARM_SUBSCRIBERS, spec.subscribers);
  const worker = new SubscriberProcess();
  try {
    worker.send({
      cmd: "connect",
      kind: spec.system === "nchan" ? "nchan" : "nova",
      urls: Array.from({ length: subscribers }, (_, i) =>
        target.subscribeUrl(WARM_STREAMS_FROM + (i % streams)),
      ),
      rounds,
      first: WARMUP_ROUNDS,
      concurrency: CONNECT_CONCURRENCY,
      localAddress: "127.0.0.2",
    });
    await worker.next("connected", CONNECT_TIMEOUT_MS);
    // Tagged as a row's rounds: an nchan subscriber tells a round by its body's `r<round>:`.
    await appendRounds(warm, streams, rounds, "r");
    await worker.report();
  } finally {
    worker.kill();
  }
}

interface RowSpec {
  subscribers: number;
  streams: number;
  system: System;
  workers: number;
  idle?: boolean;
}

async function row(spec: RowSpec): Promise<Row> {
  const { subscribers, streams, system } = spec;
  const result: Row = { ...spec };
  const target =
    system === "nchan"
      ? await nchanTarget(subscribers, spec.workers)
      : await novaTarget(system, subscribers, spec.workers);
  const workers: SubscriberProcess[] = [];
  try {
    await target.setup(streams);
    await warmUp(target, spec);
    const idle = await appendRounds(target, streams, WARMUP_ROUNDS, "w");
    result.appendIdleP50 = quantile(idle.latencies, 0.5);

    const workerCount = Math.max(1, Math.min(WORKERS, subscribers));
    for (let w = 0; w < workerCount; w++) workers.push(new SubscriberProcess());
    // Subscriber i is on stream i mod streams, held by worker i mod workerCount.
    const shares = workers.map((_, w) => {
      const ids: number[] = [];
      for (let i = w; i < subscribers; i += workerCount) ids.push(i);
      return ids;
    });
    await sleep(500);
    const serverPid = target.serverPids();
    const rss0 = rssKib(serverPid);
    const fds0 = fdCount(serverPid);
    // The warm-up's Subscribe calls are not the row's.
    const calls0 = (await target.connected(0)).upstreamCalls ?? 0;
    const cpu0 = { star: target.starPid ? cpuS([target.starPid]) : 0, server: cpuS(serverPid) };
    const connectStart = performance.now();
    workers.forEach((worker, w) => {
      worker.send({
        cmd: "connect",
        kind: system === "nchan" ? "nchan" : "nova",
        urls: (shares[w] as number[]).map((i) => target.subscribeUrl(i % streams)),
        rounds: ROUNDS,
        first: WARMUP_ROUNDS,
        concurrency: CONNECT_CONCURRENCY,
        // Several source addresses, as clients behind several balancers or NATs.
        localAddress: `127.0.0.${2 + w}`,
      });
    });
    const connected = await Promise.all(
      workers.map((worker) => worker.next("connected", CONNECT_TIMEOUT_MS)),
    );
    result.connectS = (performance.now() - connectStart) / 1000;
    result.connectCpuS = cpuS(serverPid) - cpu0.server;
    const ready = connected.reduce((sum, m) => sum + (m.ready as number), 0);
    const state = await target.connected(ready);
    result.upstreamCalls =
      state.upstreamCalls === undefined ? undefined : state.upstreamCalls - calls0;
    await sleep(500);
    const rss1 = rssKib(serverPid);
    const fds1 = fdCount(serverPid);
    result.kibPerSubscriber = (rss1 - rss0) / subscribers;
    if (spec.idle) {
      const cpuHeld = cpuS(serverPid);
      await sleep(IDLE_HOLD_MS);
      const rss2 = rssKib(serverPid);
      result.kibPerSubscriber = (Math.max(rss1, rss2) - rss0) / subscribers;
      result.idleCpuS = cpuS(serverPid) - cpuHeld;
      console.log(
        `  ${label(result)}: ${ready}/${subscribers} ready in ${result.connectS.toFixed(1)} s ` +
          `(${connected.reduce((s, m) => s + (m.failed as number), 0)} failed); ${state.note}; ` +
          `server RSS ${(rss0 / 1024).toFixed(0)} -> ${(rss1 / 1024).toFixed(0)} -> ` +
          `${(rss2 / 1024).toFixed(0)} MiB after ${IDLE_HOLD_MS / 1000} s of pings; ` +
          `open fds ${fds0} -> ${fds1}; load average ${loadavg()[0]?.toFixed(2)}`,
      );
      for (const e of connected.flatMap((m) => m.errors as string[]).slice(0, 5)) {
        console.log(`    ${e}`);
      }
      return result;
    }

    const live = await appendRounds(target, streams, ROUNDS, "r");
    result.appendP50 = quantile(live.latencies, 0.5);
    result.roundsPerS = live.rate;
    const reports = await Promise.all(workers.map((w) => w.report()));
    result.starCpuS = target.starPid ? cpuS([target.starPid]) - cpu0.star : undefined;
    result.serverCpuS = cpuS(serverPid) - cpu0.server;

    const events = new Float64Array(subscribers * ROUNDS);
    /** The same arrivals from when their round was due. */
    const fromDue = new Float64Array(subscribers * ROUNDS);
    let n = 0;
    let missed = 0;
    reports.forEach((report, w) => {
      (shares[w] as number[]).forEach((i, k) => {
        const started = live.started[i % streams] as Float64Array;
        for (let r = 0; r < ROUNDS; r++) {
          const at = report.arrivals[k * ROUNDS + r] as number;
          if (Number.isNaN(at)) missed++;
          else {
            fromDue[n] = at - (live.due[r] as number);
            events[n++] = at - (started[r] as number);
          }
        }
      });
    });
    if (PER_ROUND) printRounds(live, reports, shares);
    const sorted = events.subarray(0, n).sort();
    result.event = {
      p50: quantile(sorted, 0.5),
      p99: quantile(sorted, 0.99),
      max: sorted[n - 1] ?? Number.NaN,
      p99Due: quantile(fromDue.subarray(0, n).sort(), 0.99),
    };
    result.missed = missed;
    result.delivered = n;
    result.repeated = reports.reduce((sum, r) => sum + r.repeated, 0);
    result.clientCpuS = reports.reduce((sum, r) => sum + r.cpuS, 0);
    const sum = (key: "failed" | "ended" | "extra") => reports.reduce((s, r) => s + r[key], 0);
    const errors = reports.flatMap((r) => r.errors);
    console.log(
      `  ${label(result)}: ${ready}/${subscribers} ready in ${result.connectS.toFixed(1)} s ` +
        `(${sum("failed")} failed, ${sum("ended")} ended later, ${sum("extra")} unexpected records); ` +
        `${state.note}; server RSS ${(rss0 / 1024).toFixed(0)} -> ${(rss1 / 1024).toFixed(0)} MiB, ` +
        `open fds ${fds0} -> ${fds1}; ` +
        `${ROUNDS} rounds took ${live.seconds.toFixed(1)} s; load average ${loadavg()[0]?.toFixed(2)}`,
    );
    if (reports.some((r) => r.gaveUp)) {
      console.log(
        `    stopped waiting for records: none for ${DELIVERY_IDLE_MS / 1000} s, or ${DELIVERY_CAP_MS / 1000} s in all`,
      );
    }
    for (const e of errors.slice(0, 5)) console.log(`    ${e}`);
    return result;
  } finally {
    for (const w of workers) w.kill();
    await target.close();
  }
}

// ---- the table --------------------------------------------------------------------------------

function label(r: Row): string {
  const layout = r.streams === 1 ? "1 stream" : `${r.streams} streams`;
  const system = r.system === "nchan" ? "nchan" : `sharing ${r.system}`;
  const workers = r.workers > 1 ? `, ${r.workers} workers` : "";
  return `${r.subscribers} ${r.idle ? "idle " : ""}subscribers, ${layout}, ${system}${workers}`;
}

const COLUMNS: [string, number, (r: Row) => string][] = [
  ["subscribers", 11, (r) => String(r.subscribers)],
  ["streams", 7, (r) => String(r.streams)],
  ["system", 11, (r) => (r.system === "nchan" ? "nchan" : `sharing ${r.system}`)],
  ["workers", 7, (r) => String(r.workers)],
  ["load", 4, (r) => (r.idle ? "idle" : "busy")],
  ["connect s", 9, (r) => fixed(r.connectS, 1)],
  ["conn/s", 6, (r) => fixed(r.connectS ? r.subscribers / r.connectS : undefined, 0)],
  ["rounds/s", 8, (r) => fixed(r.roundsPerS, 1)],
  ["append p50 idle", 15, (r) => fixed(r.appendIdleP50, 1)],
  ["append p50 subs", 15, (r) => fixed(r.appendP50, 1)],
  ["event p50", 9, (r) => fixed(r.event?.p50, 1)],
  ["p99", 7, (r) => fixed(r.event?.p99, 1)],
  ["max", 7, (r) => fixed(r.event?.max, 1)],
  ["p99 from due", 12, (r) => fixed(r.event?.p99Due, 1)],
  ["missed", 6, (r) => fixed(r.missed, 0)],
  ["repeated", 8, (r) => fixed(r.repeated, 0)],
  ["KiB/sub", 7, (r) => fixed(r.kibPerSubscriber, 1)],
  ["upstream calls", 14, (r) => fixed(r.upstreamCalls, 0)],
  ["star CPU s", 10, (r) => fixed(r.starCpuS, 2)],
  ["server CPU s", 12, (r) => fixed(r.serverCpuS, 2)],
  ["connect µs/sub", 14, (r) => fixed(perSubscriber(r), 0)],
  ["µs/event", 8, (r) => fixed(perEvent(r), 1)],
  ["client CPU s", 12, (r) => fixed(r.clientCpuS, 2)],
];

/** Server CPU per subscriber connected, µs. */
function perSubscriber(r: Row): number | undefined {
  if (r.connectCpuS === undefined) return undefined;
  return (r.connectCpuS * 1e6) / r.subscribers;
}

/** Server CPU per delivered event once connected (appends included), µs. */
function perEvent(r: Row): number | undefined {
  if (r.serverCpuS === undefined || r.connectCpuS === undefined || !r.delivered) return undefined;
  return ((r.serverCpuS - r.connectCpuS) * 1e6) / r.delivered;
}

function fixed(value: number | undefined, digits: number): string {
  return value === undefined ? "-" : value.toFixed(digits);
}

function line(r: Row): string {
  if (r.failed !== undefined) {
    return `${COLUMNS.slice(0, 3)
      .map(([, w, f]) => f(r).padStart(w))
      .join("  ")}  failed: ${r.failed}`;
  }
  return COLUMNS.map(([, w, f]) => f(r).padStart(w)).join("  ");
}

const header = COLUMNS.map(([name, w]) => name.padStart(w)).join("  ");

const nchan = exists(NGINX) && exists(NCHAN);
const systems = SYSTEMS.filter((s) => s !== "nchan" || nchan);
console.log(
  `SSE fan-out: ${ROUNDS} rounds at ${1000 / INTERVAL_MS}/s of one ${RECORD_BYTES} B record to every stream; ` +
    `subscribers held by ${WORKERS} client processes; fd limit ${FD_LIMIT}`,
);
if (!nchan) console.log(`nchan rows skipped: ${NGINX} or ${NCHAN} is missing`);
if (FD_LIMIT < Math.max(...SIZES) + 1024) {
  console.log(`fd limit ${FD_LIMIT} is below the largest size plus 1024: rows may fail`);
}
const specs: RowSpec[] = [];
for (const subscribers of SIZES) {
  for (const streams of LAYOUTS) {
    for (const system of systems) {
      specs.push({ subscribers, streams, system, workers: GATEWAY_WORKERS });
    }
  }
}
for (const system of IDLE > 0 ? systems : []) {
  specs.push({ subscribers: IDLE, streams: 1, system, workers: GATEWAY_WORKERS, idle: true });
}
const [multiWorkers, multiSubscribers] = MULTI;
for (const system of multiWorkers && multiSubscribers ? systems : []) {
  specs.push({
    subscribers: multiSubscribers as number,
    streams: 1,
    system,
    workers: multiWorkers as number,
  });
}
const rows: Row[] = [];
for (const spec of specs) {
  let r: Row;
  try {
    r = await row(spec);
  } catch (err) {
    r = { ...spec, failed: String(err).split("\n")[0] };
    console.log(`  ${label(r)}: failed: ${String(err)}`);
  }
  rows.push(r);
}
console.log();
console.log(
  "latencies in ms: append p50 = start to ack with no subscriber (idle) and with them connected;",
);
console.log(
  "event = an append's start to its arrival at a subscriber, over every (subscriber, record); " +
    "p99 from due = the same from when its round was due (a round starts after the acks of the " +
    "one before: a server that cannot keep the rate starts rounds late, which `event` leaves out);",
);
console.log(
  "KiB/sub = server RSS growth per subscriber (gateway, or nginx worker); upstream calls = " +
    "nova_gateway_upstream_subscribe_calls while connected;",
);
console.log(
  "CPU s = utime + stime from before connecting to the last delivery (server: gateway or nginx " +
    "worker; client: the subscriber processes from their start, in all); connect µs/sub = the " +
    "server's CPU while they connected, per subscriber; µs/event = the server's CPU after that " +
    "(the appends included), per delivered event",
);
console.log(header);
for (const r of rows) console.log(line(r));
process.exit(0);
