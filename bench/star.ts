// `npm run bench:star`: append throughput of one star process (embedded s3rver) for 1 KiB
// records, batches of 1 and 100, 1/8/64 concurrent producers, EXPRESS and STANDARD; then
// Subscribe delivery latency measured from the append ack. Prints a table; no thresholds.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SubscribeResponse__Output } from "../src/gen/nova/v1/SubscribeResponse.ts";
import { call } from "../test/harness/grpc.ts";
import { startStarProcess } from "../test/harness/star-process.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const RECORD = Buffer.alloc(1024, 120);

const dir = await mkdtemp(join(tmpdir(), "nova-bench-star-"));
const star = await startStarProcess(["--data-dir", dir]);
const { client } = star;

try {
  await call(client, "CreateBucket", { name: "bench" });
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
  await subscribeLatency();
} finally {
  client.close();
  await star.proc.kill("SIGTERM");
  await rm(dir, { recursive: true, force: true });
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
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
    const lat = [...acks]
      .map(([seq, t]) => (delivered.get(seq) ?? Number.NaN) - t)
      .sort((a, b) => a - b);
    console.log(
      `subscribe delivery after ack (${cls.replace("CLASS_", "")}, ${lat.length} records): p50 ${quantile(lat, 0.5).toFixed(2)} ms, p99 ${quantile(lat, 0.99).toFixed(2)} ms (negative: delivered before the ack reached the producer)`,
    );
  }
}
