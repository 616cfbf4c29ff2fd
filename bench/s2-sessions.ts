// `npm run bench:s2`: S2's TypeScript SDK, with its default settings, appending one-record
// batches on one append session against `npm start` (gateway with embedded star and object
// store, its own process; this process is only the client), on each transport side by side:
//   s2s    S2's binary session protocol over cleartext HTTP/2 (the SDK's default on Node)
//   fetch  the SDK's HTTP/1.1 transport (single-flight: one append in flight at a time)
// Then one more fetch run, by this client (its code now warm) against a second, fresh
// `npm start`: what a server's first thousand costs apart from the client's own.
// Prints, per run: milliseconds from the first submit to the last ack, the records that landed
// (the SDK resends a batch whose ack takes longer than its 5 s timeout) and the rate.
// BENCH_S2_RECORDS (default 1000) batches per run, BENCH_RUNS (default 2) runs per transport.
import "../scripts/help-first.ts";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AppendInput, AppendRecord, S2 } from "@s2-dev/streamstore";
import { freePort } from "../test/harness/ports.ts";
import { nodeArgs, startProcess } from "../test/harness/process.ts";

const RECORDS = Number(process.env.BENCH_S2_RECORDS ?? 1000);
const RUNS = Number(process.env.BENCH_RUNS ?? 2);

/** `npm start` on a data directory of its own, in its own process, and its SDK client. */
async function npmStart() {
  const dir = await mkdtemp(join(tmpdir(), "nova-bench-s2-"));
  const port = await freePort();
  const [command, args] = nodeArgs("src/main.ts", [
    "--port",
    String(port),
    "--data-dir",
    dir,
    "--log-level",
    "warn",
  ]);
  const proc = await startProcess({
    command,
    args,
    readyLine: /^nova-gateway listening on (http:\/\/\S+)$/,
  });
  const base = `http://127.0.0.1:${port}`;
  const s2 = new S2({ accessToken: "bench", endpoints: { account: base, basin: base } });
  const basinName = `bench-s2-${process.pid}-${port}`;
  await s2.basins.create({ basin: basinName });
  return {
    basin: s2.basin(basinName),
    stop: () => proc.kill("SIGTERM"),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

type Basin = Awaited<ReturnType<typeof npmStart>>["basin"];

async function run(basin: Basin, transport: "s2s" | "fetch", name: string, label: string) {
  await basin.streams.create({ stream: name });
  const stream = basin.stream(name, { forceTransport: transport });
  const session = await stream.appendSession();
  const started = performance.now();
  const acks: Promise<unknown>[] = [];
  for (let i = 0; i < RECORDS; i++) {
    acks.push(
      (await session.submit(AppendInput.create([AppendRecord.string({ body: `r${i}` })]))).ack(),
    );
  }
  await Promise.all(acks);
  const ms = performance.now() - started;
  await session.close();
  const landed = (await stream.checkTail()).tail.seqNum;
  await stream.close();
  console.log(
    `${transport.padEnd(9)}  ${label.padStart(10)}  ${ms.toFixed(0).padStart(8)}  ${String(landed).padStart(6)}  ${String(landed - RECORDS).padStart(10)}  ${((RECORDS * 1000) / ms).toFixed(0).padStart(9)}`,
  );
}

console.log(`${RECORDS} one-record batches on one append session, SDK defaults`);
console.log("transport         run        ms  landed  duplicates  batches/s");
const first = await npmStart();
try {
  for (let n = 1; n <= RUNS; n++) {
    for (const transport of ["s2s", "fetch"] as const) {
      await run(first.basin, transport, `${transport}-${n}`, String(n));
    }
  }
} finally {
  await first.stop();
}
const fresh = await npmStart();
try {
  await run(fresh.basin, "fetch", "fetch-fresh", "new server");
} finally {
  await fresh.stop();
  await Promise.all([first.remove(), fresh.remove()]);
}
