// `npm run bench:star`: append throughput of one star process (embedded s3rver) for 1 KiB
// records, batches of 1 and 100, 1/8/64 concurrent producers, EXPRESS and STANDARD; then
// Subscribe delivery latency measured from the append ack; then ReadPlan: the time to plan a
// large history (BENCH_READPLAN_MB, default 1024 MiB, written in 1 MiB batches, settled one
// chunk each) and the raw fetch-and-decode throughput of its chunks from s3rver. Prints tables; no
// thresholds. Then the many-streams matrix (bench/many-streams.ts). BENCH_ONLY=append|subscribe|
// readplan|streams runs one section.

import "../scripts/help-first.ts";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { request } from "undici";
import { decodeChunk } from "../src/contract/codec/chunk.ts";
import type { ReadPlanEntry__Output } from "../src/gen/nova/v1/ReadPlanEntry.ts";
import type { SubscribeResponse__Output } from "../src/gen/nova/v1/SubscribeResponse.ts";
import { call, settleStar } from "../test/harness/grpc.ts";
import { startStarProcess } from "../test/harness/star-process.ts";
import { manyStreams } from "./many-streams.ts";
import { quantile } from "./stats.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const RECORD = Buffer.alloc(1024, 120);
const ONLY = process.env.BENCH_ONLY;
const READPLAN_MB = Number(process.env.BENCH_READPLAN_MB ?? 1024);
const runs = (section: string) => ONLY === undefined || ONLY === section;

const dir = await mkdtemp(join(tmpdir(), "nova-bench-star-"));
const star = await startStarProcess(["--data-dir", dir]);
const { client } = star;

try {
  await call(client, "CreateBucket", { name: "bench" });
  if (runs("append")) await appendThroughput();
  if (runs("subscribe")) await subscribeLatency();
  if (runs("readplan")) await readPlanBench();
} finally {
  client.close();
  await star.proc.kill("SIGTERM");
  await rm(dir, { recursive: true, force: true });
}
if (runs("streams")) await manyStreams();

async function appendThroughput(): Promise<void> {
  console.log(`star append throughput, 1 KiB records, ${SECONDS} s per row`);
  console.log("class     batch  producers   appends/s   records/s      MB/s   p50 ms   p99 ms");
  for (const cls of ["CLASS_EXPRESS", "CLASS_STANDARD"] as const) {
    for (const batch of [1, 100]) {
      for (const producers of [1, 8, 64]) {
        const key = `${cls}-${batch}-${producers}`;
        await call(client, "CreateStream", { bucket: "bench", key, config: { class: cls } });
        const records = Array.from({ length: batch }, () => ({ body: RECORD }));
        const latencies: number[] = [];
        const deadline = performance.now() + SECONDS * 1000;
        const started = performance.now();
        await Promise.all(
          Array.from({ length: producers }, async () => {
            while (performance.now() < deadline) {
              const t0 = performance.now();
              await call(client, "Append", { bucket: "bench", key, records });
              latencies.push(performance.now() - t0);
            }
          }),
        );
        const elapsed = (performance.now() - started) / 1000;
        const appends = latencies.length / elapsed;
        latencies.sort((a, b) => a - b);
        console.log(
          [
            cls.replace("CLASS_", "").padEnd(9),
            String(batch).padStart(5),
            String(producers).padStart(10),
            appends.toFixed(0).padStart(11),
            (appends * batch).toFixed(0).padStart(11),
            ((appends * batch * RECORD.length) / 1e6).toFixed(1).padStart(9),
            quantile(latencies, 0.5).toFixed(1).padStart(8),
            quantile(latencies, 0.99).toFixed(1).padStart(8),
          ].join(" "),
        );
      }
    }
  }
}

/** Appends one record at a time and times each one from its ack to its delivery. */
async function subscribeLatency(): Promise<void> {
  for (const cls of ["CLASS_EXPRESS", "CLASS_STANDARD"] as const) {
    const key = `sub-${cls}`;
    await call(client, "CreateStream", { bucket: "bench", key, config: { class: cls } });
    const delivered = new Map<string, number>();
    const sub = client.Subscribe({ bucket: "bench", key, seq_num: "0" });
    sub.on("data", (m: SubscribeResponse__Output) => {
      for (const r of m.records) delivered.set(r.seq_num, performance.now());
    });
    sub.on("error", () => undefined);
    const acks = new Map<string, number>();
    const deadline = performance.now() + SECONDS * 1000;
    while (performance.now() < deadline) {
      const ack = await call(client, "Append", {
        bucket: "bench",
        key,
        records: [{ body: RECORD }],
      });
      acks.set(ack.start?.seq_num ?? "", performance.now());
    }
    const settle = performance.now() + 2000;
    while (delivered.size < acks.size && performance.now() < settle) {
      await new Promise((r) => setImmediate(r));
    }
    sub.cancel();
    // A record not delivered within the settle time counts as never delivered: the slowest.
    const lat = [...acks]
      .map(([seq, t]) => (delivered.get(seq) ?? Number.POSITIVE_INFINITY) - t)
      .sort((a, b) => a - b);
    const missed = lat.filter((l) => l === Number.POSITIVE_INFINITY).length;
    console.log(
      `subscribe delivery after ack (${cls.replace("CLASS_", "")}, ${lat.length} records, ${missed} not delivered): p50 ${quantile(lat, 0.5).toFixed(2)} ms, p99 ${quantile(lat, 0.99).toFixed(2)} ms (negative: delivered before the ack reached the producer)`,
    );
  }
}

/** Writes READPLAN_MB of history, then times planning it and fetching and decoding its chunks. */
async function readPlanBench(): Promise<void> {
  const key = "history";
  const s = { bucket: "bench", key };
  await call(client, "CreateStream", { ...s, config: { class: "CLASS_EXPRESS" } });
  const big = Buffer.alloc(64 * 1024, 97);
  const batch = Array.from({ length: 16 }, () => ({ body: big }));
  const batchBytes = 16 * big.length;
  const batches = Math.ceil((READPLAN_MB * 1024 * 1024) / batchBytes);
  let written = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (written < batches) {
        written++;
        await call(client, "Append", { ...s, records: batch });
      }
    }),
  );
  // Each 1 MiB commit settles into its chunk as it is acked; SettleStar makes sure of the last.
  await settleStar(star.address);
  const writeS = (performance.now() - t0) / 1000;
  const totalMB = (batches * batchBytes) / 1e6;
  console.log(
    `\nReadPlan over ${(batches * batchBytes) / 2 ** 20} MiB of history (${batches} appends of 16 x 64 KiB, one chunk each), written in ${writeS.toFixed(1)} s (${(totalMB / writeS).toFixed(0)} MB/s)`,
  );

  // The first plan signs every URL; later ones reuse them (chunks never change).
  let t = performance.now();
  const { entries, calls } = await planAll(key, 10_000);
  console.log(
    `first plan, limit 10000: ${entries.length} entries in ${calls} call(s), ${(performance.now() - t).toFixed(0)} ms (signs every URL)`,
  );
  for (const limit of [1000, 10_000]) {
    const times: number[] = [];
    let planned = { entries, calls };
    for (let run = 0; run < 5; run++) {
      t = performance.now();
      planned = await planAll(key, limit);
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    console.log(
      `plan again, limit ${limit}: ${planned.entries.length} entries in ${planned.calls} call(s), median ${quantile(times, 0.5).toFixed(1)} ms (URLs reused)`,
    );
  }

  console.log(
    "fetch and decode every chunk: undici GET of its presigned URL, then decodeChunk (both CRCs)",
  );
  console.log("concurrency     MB/s   records/s   chunks/s   decode-only MB/s");
  for (const concurrency of [1, 4, 8]) {
    let next = 0;
    let bytes = 0;
    let records = 0;
    let decodeMs = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < entries.length) {
          const e = entries[next++] as ReadPlanEntry__Output;
          const res = await request(e.url as string);
          const body = Buffer.from(await res.body.arrayBuffer());
          if (res.statusCode !== 200) throw new Error(`GET ${e.url}: ${res.statusCode}`);
          const td = performance.now();
          records += decodeChunk(body).records.length;
          decodeMs += performance.now() - td;
          bytes += body.length;
        }
      }),
    );
    const secs = (performance.now() - t0) / 1000;
    console.log(
      [
        String(concurrency).padStart(11),
        (bytes / 1e6 / secs).toFixed(0).padStart(8),
        (records / secs).toFixed(0).padStart(11),
        (entries.length / secs).toFixed(0).padStart(10),
        (bytes / 1e3 / decodeMs).toFixed(0).padStart(18),
      ].join(" "),
    );
  }
}

async function planAll(
  key: string,
  limit: number,
): Promise<{ entries: ReadPlanEntry__Output[]; calls: number }> {
  const entries: ReadPlanEntry__Output[] = [];
  let calls = 1;
  let plan = await call(client, "ReadPlan", { bucket: "bench", key, seq_num: "0", limit });
  entries.push(...plan.entries);
  while (plan.more) {
    calls++;
    plan = await call(client, "ReadPlan", {
      bucket: "bench",
      key,
      seq_num: plan.vended_until,
      limit,
    });
    entries.push(...plan.entries);
  }
  return { entries, calls };
}
