// Memory under a steady, modest production mix (docs/operating.md, "Memory"): 10 streams, 20
// appends/s of 1 KiB from 2 producers, 20 SSE subscribers per stream from seq_num 0, 4 page
// reads/s of 100 records, a long-poll loop per stream, and every minute 20 subscribers dropped
// and resumed with Last-Event-ID. The load runs in a separate process (bench/soak-client.ts).
// Targets, run side by side in one run: `embedded` (`npm start`: gateway, star and object store
// in one process) and `pair` (a gateway in front of a separate star process). Every
// SOAK_SAMPLE_S seconds it prints each process's RSS, the gateway's heap (used/total) and
// external memory and every cache's held bytes against its bound; at the end, RSS growth per 10
// minutes after the warm-up (also less what the caches hold, which grows as they fill toward their
// bounds), and whether every subscriber saw every record once and in order.
//   SOAK_MINUTES=30 SOAK_WARMUP_MINUTES=5 SOAK_SAMPLE_S=60 SOAK_TARGETS=embedded,pair npm run soak
// SOAK_GATEWAY_ARGS and SOAK_STAR_ARGS add flags (the star's apply to `pair` only).
import "../scripts/help-first.ts";
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { starStats } from "../test/harness/grpc.ts";
import { http } from "../test/harness/http.ts";
import { scraped } from "../test/harness/metrics.ts";
import { rssBytes } from "../test/harness/proc-stats.ts";
import { nodeArgs, type RunningProcess, startProcess } from "../test/harness/process.ts";
import { startStarProcess } from "../test/harness/star-process.ts";

const MINUTES = Number(process.env.SOAK_MINUTES ?? 30);
const WARMUP_MINUTES = Number(process.env.SOAK_WARMUP_MINUTES ?? 5);
const SAMPLE_S = Number(process.env.SOAK_SAMPLE_S ?? 60);
const TARGETS = (process.env.SOAK_TARGETS ?? "embedded,pair").split(",");
/** More flags, for a run with smaller caches that fill within the run. */
const GATEWAY_ARGS = (process.env.SOAK_GATEWAY_ARGS ?? "").split(" ").filter(Boolean);
const STAR_ARGS = (process.env.SOAK_STAR_ARGS ?? "").split(" ").filter(Boolean);
const STREAMS = 10;
const MiB = 1024 * 1024;

interface Sample {
  atS: number;
  gatewayRss: number;
  starRss?: number;
  heap: number;
  /** What V8 holds for its heap, used or not. */
  heapTotal: number;
  external: number;
  /** What the caches and pools in the gateway's process hold (its /metrics). */
  gatewayHeld: number;
  parts: Record<string, { held: number; bound: number }>;
}

interface Target {
  name: string;
  base: string;
  gatewayPid: number;
  starPid?: number;
  starAddress?: string;
  close(): Promise<void>;
}

const READY = /^nova-gateway listening on (http:\/\/\S+)$/;

async function gateway(args: string[]): Promise<RunningProcess> {
  const [command, argv] = nodeArgs("src/main.ts", [
    ...["--port", "0", "--log-level", "warn", "--drain-delay-ms", "0"],
    ...args,
    ...GATEWAY_ARGS,
  ]);
  return startProcess({ command, args: argv, readyLine: READY });
}

async function start(name: string): Promise<Target> {
  const dir = await mkdtemp(join(tmpdir(), `nova-soak-${name}-`));
  if (name === "embedded") {
    const gw = await gateway(["--data-dir", dir]);
    return {
      name,
      base: gw.match[1] as string,
      gatewayPid: gw.child.pid as number,
      async close() {
        await gw.kill("SIGTERM");
        await rm(dir, { recursive: true, force: true });
      },
    };
  }
  const star = await startStarProcess(["--data-dir", dir], { args: STAR_ARGS });
  const gw = await gateway(["--stars", star.address]);
  return {
    name,
    base: gw.match[1] as string,
    gatewayPid: gw.child.pid as number,
    starPid: star.proc.child.pid as number,
    starAddress: star.address,
    async close() {
      await gw.kill("SIGTERM");
      star.client.close();
      await star.proc.kill("SIGTERM");
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function sample(t: Target, atS: number): Promise<Sample> {
  const page = (await http(t.base, "GET", "/metrics")).text;
  const parts: Sample["parts"] = {};
  for (const line of page.split("\n")) {
    const m = /^nova_gateway_memory_(held|bound)_bytes\{part="([a-z_]+)"\} (\S+)$/.exec(line);
    if (!m) continue;
    const name = m[2] as string;
    const part = parts[name] ?? { held: 0, bound: 0 };
    part[m[1] as "held" | "bound"] = Number(m[3]);
    parts[name] = part;
  }
  const gatewayHeld = Object.values(parts).reduce((n, p) => n + p.held, 0);
  if (t.starAddress) {
    for (const p of (await starStats(t.starAddress)).memory) {
      parts[`star_${p.name}`] = { held: Number(p.held_bytes), bound: Number(p.bound_bytes) };
    }
  }
  return {
    atS,
    gatewayRss: rssBytes(t.gatewayPid),
    ...(t.starPid ? { starRss: rssBytes(t.starPid) } : {}),
    heap: scraped(page, "nodejs_heap_size_used_bytes"),
    heapTotal: scraped(page, "nodejs_heap_size_total_bytes"),
    external: scraped(page, "nodejs_external_memory_bytes"),
    gatewayHeld,
    parts,
  };
}

const mib = (n: number) => (n / MiB).toFixed(0);

function printSample(t: Target, s: Sample): void {
  const parts = Object.entries(s.parts)
    .map(([k, p]) => `${k} ${mib(p.held)}/${mib(p.bound)}`)
    .join(", ");
  const star = s.starRss === undefined ? "" : ` star RSS ${mib(s.starRss)}`;
  console.log(
    `${t.name.padEnd(8)} ${String(s.atS).padStart(5)} s  RSS ${mib(s.gatewayRss)} MiB${star}  heap ${mib(s.heap)}/${mib(s.heapTotal)}  external ${mib(s.external)}  held/bound MiB: ${parts}`,
  );
}

/** Starts the load process on `t`'s streams; resolves with its last counts when it ends. */
function load(t: Target, streams: string[]) {
  const [command, args] = nodeArgs("bench/soak-client.ts", [t.base, ...streams]);
  const child = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });
  let last: Record<string, unknown> = {};
  createInterface({ input: child.stdout }).on("line", (line) => {
    try {
      last = JSON.parse(line);
    } catch {
      console.log(`${t.name} client: ${line}`);
    }
  });
  const ended = new Promise<Record<string, unknown>>((resolve) =>
    child.on("exit", () => resolve(last)),
  );
  return {
    stop: () => {
      child.stdin.end();
      return ended;
    },
  };
}

async function run(name: string) {
  const t = await start(name);
  const samples: Sample[] = [];
  try {
    const streams: string[] = [];
    for (let i = 0; i < STREAMS; i++) {
      const bucket = `soak-${name}-${i}`;
      await http(t.base, "POST", "/v1/buckets", { name: bucket });
      await http(t.base, "POST", `/v1/buckets/${bucket}/streams`, { key: "s" });
      streams.push(`/v1/buckets/${bucket}/streams/s`);
    }
    const client = load(t, streams);
    const startedAt = performance.now();
    for (let atS = 0; atS <= MINUTES * 60; atS += SAMPLE_S) {
      const wait = startedAt + atS * 1000 - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const s = await sample(t, atS);
      samples.push(s);
      printSample(t, s);
    }
    const counts = await client.stop();
    return { t, samples, counts };
  } finally {
    await t.close();
  }
}

/** RSS growth per 10 minutes after the warm-up: a least-squares slope, and as % of the level. */
function growth(samples: Sample[], pick: (s: Sample) => number | undefined) {
  const after = samples.filter((s) => s.atS >= WARMUP_MINUTES * 60 && pick(s) !== undefined);
  if (after.length < 2) return undefined;
  const xs = after.map((s) => s.atS / 600);
  const ys = after.map((s) => pick(s) as number);
  const mx = xs.reduce((a, b) => a + b) / xs.length;
  const my = ys.reduce((a, b) => a + b) / ys.length;
  let num = 0;
  let den = 0;
  xs.forEach((x, i) => {
    num += (x - mx) * ((ys[i] as number) - my);
    den += (x - mx) ** 2;
  });
  const slope = num / den;
  return { perTenMin: slope, percent: (100 * slope) / (ys[0] as number), max: Math.max(...ys) };
}

const results = await Promise.all(TARGETS.map(run));
console.log(`\nafter a ${WARMUP_MINUTES}-minute warm-up, ${MINUTES} minutes in all:`);
for (const { t, samples, counts } of results) {
  for (const [proc, pick] of [
    ["gateway", (s: Sample) => s.gatewayRss],
    ["gateway less its caches", (s: Sample) => s.gatewayRss - s.gatewayHeld],
    ["star", (s: Sample) => s.starRss],
  ] as const) {
    const g = growth(samples, pick);
    if (!g) continue;
    const last = samples.at(-1) as Sample;
    const bound = Object.values(last.parts).reduce((n, p) => n + p.bound, 0);
    console.log(
      `${t.name} ${proc}: RSS ${g.perTenMin >= 0 ? "+" : ""}${mib(g.perTenMin)} MiB per 10 min (${g.percent.toFixed(1)}%), peak ${mib(g.max)} MiB; caches' bounds sum to ${mib(bound)} MiB`,
    );
  }
  console.log(`${t.name} load: ${JSON.stringify(counts)}`);
}
