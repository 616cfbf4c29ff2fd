// `npm run bench:startup`: how the gateway's production entry starts, beside other ways to run
// the same sources, in one run: milliseconds from spawn to the ready line, and RSS once /readyz
// answers 200 (embedded star and object store, fresh data dir each run). Ways compared:
//   dist   node dist/main.js (the Dockerfile's entry; this bench runs `npm run build` first)
//   strip  node src/main.ts (`npm start`: Node strips the types itself)
//   tsx    node --import tsx src/main.ts, when tsx resolves (`npm install --no-save tsx`)
// BENCH_STARTUP_RUNS (default 10) runs per way, interleaved. Prints a table; no thresholds.

import "../scripts/help-first.ts";
import { execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rssBytes } from "../test/harness/proc-stats.ts";
import { startProcess } from "../test/harness/process.ts";
import { waitFor } from "../test/harness/wait.ts";
import { quantile } from "./stats.ts";

const RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 10);
const root = join(import.meta.dirname, "..");

function tsxLoader(): string | undefined {
  try {
    return import.meta.resolve("tsx");
  } catch {
    return undefined;
  }
}

/** `npm run build`: tsgo compiles src/ into dist/, as the Dockerfile does. */
function buildDist(): string {
  const tsgo = join(root, "node_modules", "@typescript", "native-preview", "bin", "tsgo");
  execFileSync(process.execPath, [tsgo, "-p", join(root, "tsconfig.build.json")]);
  return join(root, "dist", "main.js");
}

const ways: [string, string[]][] = [
  ["dist", [buildDist()]],
  ["strip", [join(root, "src", "main.ts")]],
];
const tsx = tsxLoader();
if (tsx) ways.push(["tsx", ["--import", tsx, join(root, "src", "main.ts")]]);

function rssMiB(pid: number | undefined): number {
  return rssBytes(pid as number) / 1024 / 1024;
}

async function once(args: string[]): Promise<{ readyMs: number; rss: number }> {
  const dataDir = await mkdtemp(join(tmpdir(), "nova-bench-startup-"));
  const started = performance.now();
  const gw = await startProcess({
    command: process.execPath,
    args: [...args, "--port", "0", "--data-dir", dataDir, "--log-level", "warn"],
    cwd: root,
    readyLine: /^nova-gateway listening on (http:\/\/\S+)$/,
  });
  const readyMs = performance.now() - started;
  try {
    const url = gw.match[1] as string;
    await waitFor(async () => (await fetch(`${url}/readyz`)).status === 200, {
      message: "/readyz to answer 200",
    });
    return { readyMs, rss: rssMiB(gw.child.pid) };
  } finally {
    await gw.kill("SIGTERM");
    await rm(dataDir, { recursive: true, force: true });
  }
}

const results = new Map(
  ways.map(([name]) => [name, { ready: [] as number[], rss: [] as number[] }]),
);
for (let run = 0; run < RUNS; run++) {
  for (const [name, args] of ways) {
    const { readyMs, rss } = await once(args);
    const r = results.get(name);
    r?.ready.push(readyMs);
    r?.rss.push(rss);
  }
}

// A typed array's sort is numeric, and sorts a copy here.
const median = (xs: number[]) => quantile(Float64Array.from(xs).sort(), 0.5);
const range = (xs: number[], digits: number) =>
  `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}-${Math.max(...xs).toFixed(digits)})`;
console.log(`Node ${process.version}, ${RUNS} runs per way; median (min-max)`);
console.log("| way | spawn to ready line, ms | RSS at /readyz, MiB |");
console.log("| --- | --- | --- |");
for (const [name, r] of results)
  console.log(`| ${name} | ${range(r.ready, 0)} | ${range(r.rss, 1)} |`);
