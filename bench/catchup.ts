// `npm run bench:catchup`: a catch-up read of BENCH_CATCHUP_MB (default 1024) MiB of history
// (1 KiB records, 1000 a chunk), from seq_num 0 to the tail, two ways: page by page (GET
// .../records?seq_num=N&count=1000, each page where the last one ended, over one kept-alive
// connection) and as one SSE subscription (Accept: text/event-stream, count = every record, so
// it ends with `done`), in one run through three gateways: object storage with presigned URLs
// (the default), object storage with raw {bucket, key} entries (a second star on the same store
// with --readplan-urls object, the gateway with --s3-endpoint), and off (--readplan=off: every
// page a Read). Every part is its own process: the object store (s3rver), the stars, the
// gateways, and the client, which is curl (the cheapest real client: the machine has 2 cores).
// Prints MB/s of record content, records/s, the bytes on the wire (response bodies as sent,
// compressed or not), and the CPU seconds (utime + stime from
// /proc/PID/stat) of the star serving the gateway, of the gateway, of the store and of the
// client, with the ratios to the star path, and the load average. No thresholds. Each row starts
// once the processes are idle. BENCH_CATCHUP_ROUNDS (default 2) repeats the three; the ratios
// are printed over all rounds and for each (the first also pays for warming up).
// BENCH_CATCHUP_CPU_PROF=DIR runs each gateway under `node --cpu-prof` (a profile per gateway
// in DIR/<path>, written when it exits); NODE_OPTIONS may not carry --cpu-prof.
// BENCH_CATCHUP_PATHS (default presigned,raw,star) and BENCH_CATCHUP_MODES (default pages,sse)
// pick what is measured.
// BENCH_CATCHUP_ENCODINGS (default gzip,br,zstd) adds page rows of the first path measured
// asked for with `accept-encoding: ENC` (path "presigned+gzip"...): bytes on the wire and CPU
// with and without compression side by side (curl decodes, so its CPU includes decompressing).
// BENCH_CATCHUP_CONTENT=json writes varied JSON log lines as the records (default: 1 KiB of
// "x" each, which compresses about a thousandfold and says nothing about compression).
// BENCH_CATCHUP_BASELINE=DIR adds the presigned and star paths served by the gateway of the
// checkout in DIR (rows "presigned@base", "star@base"): a before/after under the same load.

import "../scripts/help-first.ts";
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { call, dataPlaneClient } from "../test/harness/grpc.ts";
import { cpuSeconds as cpuSecondsOf } from "../test/harness/proc-stats.ts";
import { nodeArgs, type RunningProcess, startProcess } from "../test/harness/process.ts";
import { startObjstore } from "../test/readplan/fixture.ts";

const MB = Number(process.env.BENCH_CATCHUP_MB ?? 1024);
const ROUNDS = Number(process.env.BENCH_CATCHUP_ROUNDS ?? 2);
const RECORD_BYTES = 1024;
const PER_BATCH = 1000;
const BATCHES = Math.ceil((MB * 1024 * 1024) / (RECORD_BYTES * PER_BATCH));
const TOTAL = BATCHES * PER_BATCH;
const CONTENT_MB = (TOTAL * RECORD_BYTES) / 1024 / 1024;
const PATH = "/v1/buckets/bench/streams/history/records";
const PROFILE_DIR = process.env.BENCH_CATCHUP_CPU_PROF;
const BASELINE = process.env.BENCH_CATCHUP_BASELINE;
const MODES = (process.env.BENCH_CATCHUP_MODES ?? "pages,sse").split(",") as ("pages" | "sse")[];
const PATHS = new Set((process.env.BENCH_CATCHUP_PATHS ?? "presigned,raw,star").split(","));
const ENCODINGS = (process.env.BENCH_CATCHUP_ENCODINGS ?? "gzip,br,zstd")
  .split(",")
  .filter((e) => e !== "");
const CONTENT = process.env.BENCH_CATCHUP_CONTENT ?? "x";

/**
 * Record `i`'s body: 1 KiB of "x", or (BENCH_CATCHUP_CONTENT=json) JSON log lines with
 * varied fields (ids, hex trace ids, latencies) from a fixed seed, about as compressible as
 * a real stream of application logs.
 */
function recordBody(i: number): Buffer {
  if (CONTENT !== "json") return Buffer.alloc(RECORD_BYTES, "x");
  let seed = i * 2654435761 + 1;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) >>> 0;
    return seed % n;
  };
  const words = ["GET", "POST", "orders", "users", "cart", "served", "cache", "miss", "retry"];
  let text = "";
  while (text.length < RECORD_BYTES) {
    text += `${JSON.stringify({
      ts: 1_780_000_000_000 + i * 7 + rand(5),
      level: ["info", "info", "info", "warn", "error"][rand(5)],
      service: `svc-${rand(12)}`,
      trace:
        rand(2 ** 31)
          .toString(16)
          .padStart(8, "0") + rand(2 ** 31).toString(16),
      user: rand(100_000),
      path: `/api/v1/${words[rand(words.length)]}/${rand(10_000)}`,
      latency_ms: rand(2_000) / 10,
      msg: `${words[rand(words.length)]} ${words[rand(words.length)]} ${words[rand(words.length)]}`,
    })}\n`;
  }
  return Buffer.from(text.slice(0, RECORD_BYTES));
}

/** `node --cpu-prof` flags for a process named `name`, when BENCH_CATCHUP_CPU_PROF is set. */
function profileFlags(name: string): string[] {
  return PROFILE_DIR ? ["--cpu-prof", `--cpu-prof-dir=${join(PROFILE_DIR, name)}`] : [];
}

/** A star process on the store, profiled when BENCH_CATCHUP_CPU_PROF is set. */
async function starProcess(name: string, storeUrl: string, args: string[] = []) {
  const [command, argv] = nodeArgs("src/star/main.ts", [
    ...["--listen", "127.0.0.1:0", "--log-level", "warn"],
    ...["--s3-endpoint", storeUrl, "--s3-bucket", "nova", ...args],
  ]);
  const proc = await startProcess({
    command,
    args: [...profileFlags(name), ...argv],
    readyLine: /listening on (\S+)/,
  });
  const address = proc.match[1] as string;
  return { proc, address, client: dataPlaneClient(address) };
}

/** A gateway process over `stars`, profiled when BENCH_CATCHUP_CPU_PROF is set. */
async function gatewayProcess(
  name: string,
  stars: string[],
  args: string[],
  root = ".",
): Promise<{ base: string; proc: RunningProcess }> {
  const [command, argv] = nodeArgs(join(root, "src/main.ts"), [
    ...["--port", "0", "--stars", stars.join(","), "--log-level", "warn"],
    ...args,
  ]);
  const proc = await startProcess({
    command,
    args: [...profileFlags(`gateway-${name}`), ...argv],
    readyLine: /^nova-gateway listening on (http:\/\/\S+)$/,
  });
  return { base: proc.match[1] as string, proc };
}

/** CPU seconds a process has used so far. */
function cpuSeconds(proc: RunningProcess): number {
  return cpuSecondsOf(proc.child.pid as number);
}

/**
 * Waits until `procs` together use under a tenth of a core (over 300 ms), at most 15 s, so
 * that a row does not pay for the garbage collection and flushing the row before it left.
 */
async function settle(procs: RunningProcess[]): Promise<void> {
  const deadline = performance.now() + 15_000;
  const used = () => procs.reduce((sum, p) => sum + cpuSeconds(p), 0);
  for (;;) {
    const before = used();
    await new Promise((resolve) => setTimeout(resolve, 300));
    if (used() - before < 0.03 || performance.now() > deadline) return;
  }
}

/** Sums of each page's Server-Timing durations (plan, s3, star), in ms. */
function addServerTiming(sums: Map<string, number>, header: string): void {
  for (const metric of header.split(",")) {
    const m = /^\s*(\w+);dur=([\d.]+)/.exec(metric);
    if (m) sums.set(m[1] as string, (sums.get(m[1] as string) ?? 0) + Number(m[2]));
  }
}

/**
 * Runs a bash script whose client is curl, and returns its output and the CPU seconds of its
 * processes (bash's `times`: user and system time of the children). curl is the client so that
 * the client costs the machine as little as possible beside the processes measured.
 */
async function curlScript(script: string): Promise<{ out: string; cpu: number }> {
  const child = spawn("bash", ["-c", `set -o pipefail; ${script}; times`], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => {
    out += d;
  });
  child.stderr.setEncoding("utf8").on("data", (d: string) => {
    err += d;
  });
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  if (code !== 0) throw new Error(`curl client exited with ${code}: ${err}${out.slice(-2000)}`);
  const lines = out.trimEnd().split("\n");
  // The last line of `times` is the children's "XmY.YYYs XmY.YYYs" (user, system).
  const seconds = (lines.at(-1) as string).split(" ").map((t) => {
    const m = /^(\d+)m([\d.]+)s$/.exec(t);
    return m ? Number(m[1]) * 60 + Number(m[2]) : 0;
  });
  return { out: lines.slice(0, -2).join("\n"), cpu: seconds.reduce((a, b) => a + b, 0) };
}

/**
 * Reads the whole history page by page, each page of PER_BATCH records asked for where the
 * previous one ended, one curl process over one kept-alive connection. Every page must be 200
 * and hold at least PER_BATCH records' content (count caps it at PER_BATCH).
 */
async function pages(base: string, encoding?: string): Promise<Measured> {
  const config = join(dir, "pages.curl");
  const lines: string[] = [];
  for (let n = 0; n < TOTAL; n += PER_BATCH) {
    lines.push(`url = "${base}${PATH}?seq_num=${n}&count=${PER_BATCH}"`, "output = /dev/null");
  }
  writeFileSync(config, `${lines.join("\n")}\n`);
  const t0 = performance.now();
  const { out, cpu } = await curlScript(
    `curl -sS --config '${config}' ${encoding ? `--compressed -H 'accept-encoding: ${encoding}'` : ""} -w '%{http_code} %{size_download} %header{content-encoding}. %header{server-timing}\\n'`,
  );
  const seconds = (performance.now() - t0) / 1000;
  const timing = new Map<string, number>();
  let responseBytes = 0;
  const answers = out.split("\n");
  if (answers.length !== BATCHES) throw new Error(`${answers.length} pages answered`);
  for (const answer of answers) {
    const [code, size, contentEncoding, ...serverTiming] = answer.split(" ");
    const whole = encoding
      ? contentEncoding === `${encoding}.`
      : contentEncoding === "." && Number(size) >= PER_BATCH * RECORD_BYTES;
    if (code !== "200" || !whole) {
      throw new Error(`a page answered ${answer}`);
    }
    responseBytes += Number(size);
    addServerTiming(timing, serverTiming.join(" "));
  }
  return { seconds, responseBytes, client: cpu, timing };
}

/**
 * Reads the whole history as one SSE subscription from seq_num 0 with count=TOTAL, so that
 * the gateway ends it with a `done` event after the last record.
 */
async function subscription(base: string): Promise<Measured> {
  const url = `${base}${PATH}?seq_num=0&count=${TOTAL}`;
  const t0 = performance.now();
  const { out, cpu } = await curlScript(
    `curl -sS -N -H 'accept: text/event-stream' '${url}' -w '\\n%{size_download}\\n' | tail -c 400`,
  );
  const seconds = (performance.now() - t0) / 1000;
  if (!out.includes(`event: done\ndata: {"next":{"seq_num":${TOTAL},`)) {
    throw new Error(`the subscription did not end with done after ${TOTAL} records: ${out}`);
  }
  return { seconds, responseBytes: Number(out.split("\n").at(-1)), client: cpu };
}

interface Measured {
  seconds: number;
  responseBytes: number;
  /** CPU seconds of the client processes (curl, tail). */
  client: number;
  /** Pages: the sums of their Server-Timing durations. */
  timing?: Map<string, number>;
}

interface Row {
  /** 0 for the first round, which also pays for warming up (JIT, caches and pools filling). */
  round: number;
  mode: string;
  path: string;
  seconds: number;
  star: number;
  gateway: number;
  store: number;
  /** The curl client's, reading the responses. */
  client: number;
  responseBytes: number;
  /** Pages: the sums of their Server-Timing durations. */
  timing?: Map<string, number>;
}

const dir = await mkdtemp(join(tmpdir(), "nova-bench-catchup-"));
const stopping: (() => Promise<unknown>)[] = [];
try {
  const store = await startObjstore(join(dir, "s3"), ["nova"]);
  stopping.push(() => store.proc.kill());
  const star = await starProcess("star", store.url);
  stopping.push(async () => {
    star.client.close();
    await star.proc.kill();
  });

  await call(star.client, "CreateBucket", { name: "bench" });
  await call(star.client, "CreateStream", { bucket: "bench", key: "history" });
  const w0 = performance.now();
  for (let b = 0; b < BATCHES; b++) {
    const records = Array.from({ length: PER_BATCH }, (_, i) => ({
      body: recordBody(b * PER_BATCH + i),
    }));
    await call(star.client, "Append", { bucket: "bench", key: "history", records });
  }
  const writeS = (performance.now() - w0) / 1000;
  console.log(
    `wrote ${CONTENT_MB.toFixed(0)} MiB of history: ${TOTAL} records of ${RECORD_BYTES} B (${CONTENT === "json" ? "JSON log lines" : '"x"'}) in ${BATCHES} chunks, ${(CONTENT_MB / writeS).toFixed(1)} MB/s`,
  );

  // Started once the history is written: it finds the stream in the store.
  const rawStar = await starProcess("star-raw", store.url, ["--readplan-urls", "object"]);
  stopping.push(async () => {
    rawStar.client.close();
    await rawStar.proc.kill();
  });
  const presigned = await gatewayProcess("presigned", [star.address], []);
  stopping.push(() => presigned.proc.kill());
  const raw = await gatewayProcess("raw", [rawStar.address], ["--s3-endpoint", store.url]);
  stopping.push(() => raw.proc.kill());
  const off = await gatewayProcess("star", [star.address], ["--readplan=off"]);
  // The same two paths served by another checkout's gateway (a before/after in one run).
  const baselines: [string, { base: string; proc: RunningProcess }][] = [];
  if (BASELINE) {
    for (const [path, args] of [
      ["presigned@base", []],
      ["star@base", ["--readplan=off"]],
    ] as const) {
      const gateway = await gatewayProcess(path, [star.address], [...args], BASELINE);
      stopping.push(() => gateway.proc.kill());
      baselines.push([path, gateway]);
    }
  }
  stopping.push(() => off.proc.kill());

  const measure = async (
    mode: "pages" | "sse",
    path: string,
    gateway: { base: string; proc: RunningProcess },
    serving: RunningProcess,
    encoding?: string,
  ): Promise<Omit<Row, "round">> => {
    await settle([serving, gateway.proc, store.proc]);
    const before = [cpuSeconds(serving), cpuSeconds(gateway.proc), cpuSeconds(store.proc)];
    const { seconds, responseBytes, client, timing } =
      mode === "pages" ? await pages(gateway.base, encoding) : await subscription(gateway.base);
    const after = [cpuSeconds(serving), cpuSeconds(gateway.proc), cpuSeconds(store.proc)];
    const used = after.map((v, i) => v - (before[i] as number));
    return {
      mode,
      path: encoding ? `${path}+${encoding}` : path,
      seconds,
      star: used[0] as number,
      gateway: used[1] as number,
      store: used[2] as number,
      client,
      responseBytes,
      ...(timing ? { timing } : {}),
    };
  };

  const rows: Row[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    for (const mode of MODES) {
      let first = true;
      const add = async (
        path: string,
        gateway: Parameters<typeof measure>[2],
        serving: RunningProcess,
      ) => {
        rows.push({ ...(await measure(mode, path, gateway, serving)), round: r });
        // Compression costs the same whichever path the page came from: measured on one.
        if (mode === "pages" && first) {
          for (const encoding of ENCODINGS) {
            rows.push({ ...(await measure(mode, path, gateway, serving, encoding)), round: r });
          }
        }
        first = false;
      };
      if (PATHS.has("presigned")) await add("presigned", presigned, star.proc);
      if (PATHS.has("raw")) await add("raw", raw, rawStar.proc);
      if (PATHS.has("star")) await add("star", off, star.proc);
      for (const [path, gateway] of baselines) await add(path, gateway, star.proc);
    }
  }

  console.log(
    `\ncatch-up from seq 0 to the tail, one client; load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  console.log(
    "mode   path              seconds   MB/s   records/s   wire MiB   wire MB/s   star CPU s   gateway CPU s   store CPU s   client CPU s",
  );
  for (const row of rows) {
    console.log(
      [
        row.mode.padEnd(7),
        row.path.padEnd(16),
        row.seconds.toFixed(1).padStart(8),
        (CONTENT_MB / row.seconds).toFixed(1).padStart(7),
        Math.round(TOTAL / row.seconds)
          .toString()
          .padStart(12),
        (row.responseBytes / 1024 / 1024).toFixed(1).padStart(11),
        (row.responseBytes / 1024 / 1024 / row.seconds).toFixed(1).padStart(12),
        row.star.toFixed(2).padStart(13),
        row.gateway.toFixed(2).padStart(16),
        row.store.toFixed(2).padStart(14),
        row.client.toFixed(2).padStart(15),
      ].join(""),
    );
  }
  console.log("\npages: the sums of their Server-Timing durations (s)");
  for (const row of rows.filter((r) => r.timing)) {
    const parts = [...(row.timing ?? [])].map(([k, ms]) => `${k} ${(ms / 1000).toFixed(1)}`);
    console.log(`${row.path.padEnd(15)} ${parts.join(", ")}`);
  }
  const avg = (mode: string, path: string, f: (r: Row) => number, round?: number) => {
    const of = rows.filter(
      (r) => r.mode === mode && r.path === path && (round === undefined || r.round === round),
    );
    return of.reduce((sum, r) => sum + f(r), 0) / of.length;
  };
  console.log("");
  for (const mode of MODES) {
    const starSeconds = avg(mode, "star", (r) => r.seconds);
    const starCpu = avg(mode, "star", (r) => r.star);
    const paths = ["presigned", "raw", ...(BASELINE ? ["presigned@base", "star@base"] : [])];
    const compared = PATHS.has("star") ? paths : [];
    for (const path of compared.filter((p) => PATHS.has(p.replace("@base", "")))) {
      const cpu = avg(mode, path, (r) => r.star);
      const speedup = starSeconds / avg(mode, path, (r) => r.seconds);
      const byRound = Array.from({ length: ROUNDS }, (_, round) => {
        const x =
          avg(mode, "star", (r) => r.seconds, round) / avg(mode, path, (r) => r.seconds, round);
        return `round ${round + 1}: ${x.toFixed(2)}x`;
      });
      console.log(
        `${mode}: ${path} vs star: ${speedup.toFixed(2)}x the throughput (${byRound.join(", ")}); star CPU ${cpu.toFixed(2)} s vs ${starCpu.toFixed(2)} s (ratio ${(cpu / starCpu).toFixed(3)})`,
      );
    }
  }
  const plain = rows.find((r) => r.mode === "pages")?.path ?? "";
  for (const encoding of plain ? ENCODINGS : []) {
    const path = `${plain}+${encoding}`;
    const mib = (p: string) => avg("pages", p, (r) => r.responseBytes) / 1024 / 1024;
    const gw = (p: string) => avg("pages", p, (r) => r.gateway);
    const client = (p: string) => avg("pages", p, (r) => r.client);
    console.log(
      `pages: ${path} vs ${plain}: ${mib(path).toFixed(1)} MiB on the wire vs ${mib(plain).toFixed(1)} (ratio ${(mib(path) / mib(plain)).toFixed(3)}); gateway CPU ${gw(path).toFixed(2)} s vs ${gw(plain).toFixed(2)} s; client CPU ${client(path).toFixed(2)} s vs ${client(plain).toFixed(2)} s`,
    );
  }
} finally {
  for (const stop of stopping.reverse()) await stop().catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
}
