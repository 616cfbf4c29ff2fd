// `npm run bench:flood`: appends of large base64 batches from several client processes at once,
// beside one client of one-record appends, against a gateway process and a star process: the
// gateway's peak RSS (sampled from /proc every 100 ms) beside its --inflight-append-mb budget,
// its RSS (and JS heap and external memory) once the flood is over (after FLOOD_SETTLE_S seconds
// idle, default 10), the flood's
// throughput (appends acked within FLOOD_SECONDS only) and 429s, and the small appends'
// p50/p99/max over those acked, beside how many were refused or failed. Rows for each budget in
// FLOOD_BUDGETS_MB (default "512,128"). FLOOD_SECONDS (default 30), FLOOD_CLIENTS processes
// (default 4) of FLOOD_CONCURRENCY loops each (default 16), FLOOD_BATCH_MIB (default 6: an
// 8 MiB body). The small appends go to the flooded stream (FLOOD_SMALL=same, the default) or to
// a stream of their own (FLOOD_SMALL=own). Prints a table; no thresholds.

import "../scripts/help-first.ts";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { http } from "../test/harness/http.ts";
import { metric } from "../test/harness/metrics.ts";
import { startProcessStack } from "../test/harness/stack.ts";
import { quantile } from "./stats.ts";

const SECONDS = Number(process.env.FLOOD_SECONDS ?? 30);
const CLIENTS = Number(process.env.FLOOD_CLIENTS ?? 4);
const CONCURRENCY = Number(process.env.FLOOD_CONCURRENCY ?? 16);
const BATCH_MIB = Number(process.env.FLOOD_BATCH_MIB ?? 6);
const SETTLE_S = Number(process.env.FLOOD_SETTLE_S ?? 10);
const BUDGETS = (process.env.FLOOD_BUDGETS_MB ?? "512,128").split(",").map(Number);
const SMALL_STREAM = process.env.FLOOD_SMALL === "own" ? "small" : "big";
const client = join(import.meta.dirname, "append-flood-client.ts");

interface ClientResult {
  acked: number;
  late: number;
  refused: number;
  failed: number;
  latencies: number[];
}

function runClient(args: string[]): Promise<ClientResult> {
  const child = spawn(process.execPath, [client, ...args], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => {
    out += d;
  });
  return new Promise((resolve, reject) =>
    child.once("exit", (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`client exited ${code}`)),
    ),
  );
}

async function row(budgetMb: number) {
  const stack = await startProcessStack("nova-flood-", {
    gatewayArgs: ["--inflight-append-mb", String(budgetMb)],
  });
  try {
    const base = stack.gw.base;
    const rssMiB = () => stack.gw.rss() / 2 ** 20;
    const bucket = `flood-${budgetMb}`;
    await http(base, "POST", "/v1/buckets", { name: bucket });
    await http(base, "POST", `/v1/buckets/${bucket}/streams`, { key: "big" });
    await http(base, "POST", `/v1/buckets/${bucket}/streams`, { key: "small" });
    const stream = (key: string) => `${base}/v1/buckets/${bucket}/streams/${key}/records`;
    const baseline = rssMiB();
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssMiB());
    }, 100);
    const common = ["--seconds", String(SECONDS)];
    const [small, ...floods] = await Promise.all([
      runClient([stream(SMALL_STREAM), "--role", "small", ...common]),
      ...Array.from({ length: CLIENTS }, () =>
        runClient([
          stream("big"),
          "--role",
          "flood",
          "--concurrency",
          String(CONCURRENCY),
          "--batch-mib",
          String(BATCH_MIB),
          ...common,
        ]),
      ),
    ]).finally(() => clearInterval(sampler));
    await new Promise((r) => setTimeout(r, SETTLE_S * 1000));
    const after = rssMiB();
    const mib = async (name: string) => ((await metric(base, name)) / 2 ** 20).toFixed(0);
    const heap = await mib("nodejs_heap_size_used_bytes");
    const external = await mib("nodejs_external_memory_bytes");
    const sorted = (small?.latencies ?? []).sort((a, b) => a - b);
    const acked = floods.reduce((n, f) => n + f.acked, 0);
    return {
      budget: `${budgetMb} MiB`,
      "RSS base": baseline.toFixed(0),
      "RSS peak": peak.toFixed(0),
      [`RSS +${SETTLE_S}s`]: after.toFixed(0),
      "heap/ext then": `${heap}/${external}`,
      "flood MiB/s": ((acked * BATCH_MIB) / SECONDS).toFixed(1),
      "flood late": floods.reduce((n, f) => n + f.late, 0),
      "flood 429s": floods.reduce((n, f) => n + f.refused, 0),
      "flood fails": floods.reduce((n, f) => n + f.failed, 0),
      "small acked": small?.acked,
      "small 429s/fails": small ? `${small.refused}/${small.failed}` : "",
      "small p50 ms": quantile(sorted, 0.5).toFixed(1),
      "small p99 ms": quantile(sorted, 0.99).toFixed(1),
      "small max ms": (sorted.at(-1) ?? Number.NaN).toFixed(1),
    };
  } finally {
    await stack.close();
  }
}

console.log(
  `${CLIENTS} flood processes x ${CONCURRENCY} loops of ${BATCH_MIB} MiB batches (base64), one small-append process (${SMALL_STREAM === "big" ? "same stream" : "its own stream"}), ${SECONDS} s`,
);
const rows = [];
for (const budget of BUDGETS) rows.push(await row(budget));
console.table(rows);
