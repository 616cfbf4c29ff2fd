// `npm run bench:throughput`: what limits the acked throughput of large appends. One object store
// process (s3rver on a temp directory), first measured alone: THROUGHPUT_CONCURRENCY (8) loops
// PUTting objects of THROUGHPUT_OBJECT_MIB (8) MiB for THROUGHPUT_SECONDS (20), raw PUT MiB/s;
// then a star on that store and a gateway, and one client process of 8 loops appending one
// record of 1023 KiB each (base64 JSON) to one stream: acked MiB/s, side by side, with the CPU
// each process spent per acked MiB. THROUGHPUT_PROFILE=DIR writes the star's and the gateway's
// CPU profiles there. Prints a table; no thresholds.
import "../scripts/help-first.ts";
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createS3Store } from "../src/platform/objstore/index.ts";
import { http } from "../test/harness/http.ts";
import { cpuSeconds } from "../test/harness/proc-stats.ts";
import { nodeArgs, startProcess } from "../test/harness/process.ts";

const SECONDS = Number(process.env.THROUGHPUT_SECONDS ?? 20);
const CONCURRENCY = Number(process.env.THROUGHPUT_CONCURRENCY ?? 8);
const OBJECT_MIB = Number(process.env.THROUGHPUT_OBJECT_MIB ?? 8);
const RECORD_KIB = 1023;
const PROFILE_DIR = process.env.THROUGHPUT_PROFILE;

/** A program of this repository as a process, profiled under THROUGHPUT_PROFILE. */
function program(entry: string, args: string[], readyLine: RegExp) {
  const [command, argv] = nodeArgs(entry, args);
  const profile = PROFILE_DIR ? ["--cpu-prof", "--cpu-prof-dir", PROFILE_DIR] : [];
  return startProcess({ command, args: [...profile, ...argv], readyLine });
}

/** A process's CPU time so far in ms (utime + stime). */
const cpuMs = (pid: number | undefined) => cpuSeconds(pid as number) * 1000;

const dir = await mkdtemp(join(tmpdir(), "nova-bench-throughput-"));
const [command, args] = nodeArgs("src/platform/objstore/main.ts", [
  ...["--port", "0", "--data-dir", join(dir, "s3"), "--bucket", "nova"],
]);
const objstore = await startProcess({ command, args, readyLine: /^(http:\/\/\S+)$/ });
const url = objstore.match[1] as string;
const rows: Record<string, string>[] = [];
try {
  // Raw PUTs, from this process, to the store process.
  const store = createS3Store({ endpoint: url, bucket: "nova" });
  const body = Buffer.alloc(OBJECT_MIB * 2 ** 20, 7);
  let puts = 0;
  const store0 = cpuMs(objstore.child.pid);
  const started = performance.now();
  const deadline = started + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, c) => {
      for (let i = 0; performance.now() < deadline; i++) {
        await store.put(`raw/${c}/${i}`, body);
        puts++;
      }
    }),
  );
  const rawSeconds = (performance.now() - started) / 1000;
  const rawMiB = puts * OBJECT_MIB;
  rows.push({
    path: `raw PUTs of ${OBJECT_MIB} MiB x ${CONCURRENCY}`,
    "MiB/s": (rawMiB / rawSeconds).toFixed(1),
    "store CPU ms/MiB": ((cpuMs(objstore.child.pid) - store0) / rawMiB).toFixed(1),
    "star CPU ms/MiB": "",
    "gateway CPU ms/MiB": "",
  });
  store.close();

  const star = await program(
    "src/star/main.ts",
    ["--listen", "127.0.0.1:0", "--log-level", "warn", "--s3-endpoint", url, "--s3-bucket", "nova"],
    /listening on (\S+)/,
  );
  const gateway = await program(
    "src/main.ts",
    ["--port", "0", "--stars", star.match[1] as string, "--log-level", "warn"],
    /^nova-gateway listening on (http:\/\/\S+)$/,
  );
  const base = gateway.match[1] as string;
  try {
    await http(base, "POST", "/v1/buckets", { name: "throughput" });
    await http(base, "POST", "/v1/buckets/throughput/streams", { key: "big" });
    const cpu0 = [objstore.child.pid, star.child.pid, gateway.child.pid].map(cpuMs);
    const client = spawn(
      process.execPath,
      [
        join(import.meta.dirname, "append-flood-client.ts"),
        `${base}/v1/buckets/throughput/streams/big/records`,
        ...["--role", "flood", "--concurrency", String(CONCURRENCY)],
        ...["--batch-mib", String(RECORD_KIB / 1024), "--record-kib", String(RECORD_KIB)],
        ...["--seconds", String(SECONDS)],
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    let out = "";
    client.stdout.setEncoding("utf8").on("data", (d: string) => {
      out += d;
    });
    await new Promise((resolve) => client.once("exit", resolve));
    const result = JSON.parse(out) as { acked: number; refused: number; failed: number };
    const [storeCpu, starCpu, gatewayCpu] = [
      objstore.child.pid,
      star.child.pid,
      gateway.child.pid,
    ].map((pid, i) => cpuMs(pid) - (cpu0[i] as number));
    const mib = (result.acked * RECORD_KIB) / 1024;
    rows.push({
      path: `appends of one ${RECORD_KIB} KiB record x ${CONCURRENCY}, one stream`,
      "MiB/s": (mib / SECONDS).toFixed(1),
      "store CPU ms/MiB": ((storeCpu as number) / mib).toFixed(1),
      "star CPU ms/MiB": ((starCpu as number) / mib).toFixed(1),
      "gateway CPU ms/MiB": ((gatewayCpu as number) / mib).toFixed(1),
      refused: String(result.refused),
      failed: String(result.failed),
    });
  } finally {
    // SIGINT: no drain delay, so --cpu-prof gets to write its profile.
    await gateway.kill("SIGINT");
    await star.kill("SIGTERM");
  }
} finally {
  await objstore.kill("SIGTERM");
  await rm(dir, { recursive: true, force: true });
}
console.log(`${SECONDS} s per row, ${CONCURRENCY} concurrent`);
console.table(rows);
