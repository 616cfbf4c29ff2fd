// The many-streams matrix of `npm run bench:star` (BENCH_ONLY=streams): N streams, each appended
// one 1 KiB record at a fixed rate (open loop: an append is sent on schedule whether or not the
// stream's last one was acked, up to BENCH_STREAMS_OUTSTANDING per stream), through one
// AppendSession per stream (BENCH_STREAMS_VIA=append: unary Appends, dearer for this client), on
// s3rver. Reports ack p50/p99, the appends/s achieved against the rate asked, object-store PUTs/s
// and the star's CPU. s3rver runs in a process of its own (bench/counting-store.ts) behind a
// loopback proxy that counts PUTs, so the star's CPU is its own and the store's is shown beside
// it. Extra star flags: BENCH_STAR_ARGS (space-separated).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ClientDuplexStream } from "@grpc/grpc-js";
import type { AppendSessionRequest } from "../src/gen/nova/v1/AppendSessionRequest.ts";
import type { AppendSessionResponse__Output } from "../src/gen/nova/v1/AppendSessionResponse.ts";
import { call } from "../test/harness/grpc.ts";
import { cpuSeconds } from "../test/harness/proc-stats.ts";
import { nodeArgs, startProcess } from "../test/harness/process.ts";
import { s3Storage, startStarProcess } from "../test/harness/star-process.ts";
import { quantile } from "./stats.ts";

const SECONDS = Number(process.env.BENCH_STREAMS_SECONDS ?? 20);
const OUTSTANDING = Number(process.env.BENCH_STREAMS_OUTSTANDING ?? 50);
const STAR_ARGS = (process.env.BENCH_STAR_ARGS ?? "").split(" ").filter((a) => a !== "");
/** How producers append: one AppendSession per stream (cheaper for the client), or unary Append. */
const VIA = process.env.BENCH_STREAMS_VIA === "append" ? "append" : "session";
const RECORD = Buffer.alloc(1024, 120);
const MATRIX: [streams: number, perSecond: number][] = [
  [1, 10],
  [100, 10],
  [1000, 10],
  [1000, 1],
];

export async function manyStreams(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "nova-bench-streams-"));
  const [command, args] = nodeArgs("bench/counting-store.ts", [dir]);
  const store = await startProcess({ command, args, readyLine: /listening on (\S+)/ });
  const storeUrl = store.match[1] as string;
  const puts = async () => Number(await (await fetch(`${storeUrl}/__puts`)).text());
  const star = await startStarProcess(s3Storage(storeUrl), { args: STAR_ARGS });
  const { client } = star;
  const pid = star.proc.child.pid as number;
  const storePid = store.child.pid as number;
  try {
    await call(client, "CreateBucket", { name: "many" });
    console.log(
      `\nmany streams, one 1 KiB record per append (${VIA === "session" ? "an AppendSession per stream" : "unary Append"}), ${SECONDS} s per row, star flags: ${STAR_ARGS.join(" ") || "(defaults)"}`,
    );
    console.log(
      "streams  rate/s  asked/s  acked/s   p50 ms   p99 ms   PUTs/s  star CPU %  store CPU %  skipped",
    );
    for (const [n, rate] of MATRIX) {
      const keys = Array.from({ length: n }, (_, i) => `m${n}-${rate}-${i}`);
      for (const key of keys) await call(client, "CreateStream", { bucket: "many", key });
      const latencies: number[] = [];
      let skipped = 0;
      let asked = 0;
      const inFlight = new Map<string, number>();
      const pending = new Set<Promise<void>>();
      // Per stream (sessions): when each batch still waiting for its ack was sent, in order.
      const sentAt = new Map<string, number[]>();
      const sessions = new Map<
        string,
        ClientDuplexStream<AppendSessionRequest, AppendSessionResponse__Output>
      >();
      if (VIA === "session") {
        for (const key of keys) {
          const session = client.AppendSession();
          const queue: number[] = [];
          sentAt.set(key, queue);
          session.on("data", (m: AppendSessionResponse__Output) => {
            if (!m.ack) return;
            const sent = queue.shift();
            if (m.ack.appended && sent !== undefined) latencies.push(performance.now() - sent);
          });
          session.on("error", () => undefined);
          session.write({ open: { bucket: "many", key } });
          sessions.set(key, session);
        }
      }
      const cpu0 = cpuSeconds(pid);
      const puts0 = await puts();
      const storeCpu0 = cpuSeconds(storePid);
      const t0 = performance.now();
      const period = 1000 / rate;
      const timers: NodeJS.Timeout[] = [];
      const send = (key: string) => {
        asked++;
        const queue = sentAt.get(key);
        const session = sessions.get(key);
        if (queue && session) {
          if (queue.length >= OUTSTANDING) {
            skipped++;
            return;
          }
          queue.push(performance.now());
          session.write({ batch: { records: [{ body: RECORD }] } });
          return;
        }
        const outstanding = inFlight.get(key) ?? 0;
        if (outstanding >= OUTSTANDING) {
          skipped++;
          return;
        }
        inFlight.set(key, outstanding + 1);
        const sent = performance.now();
        const p = call(client, "Append", { bucket: "many", key, records: [{ body: RECORD }] })
          .then(() => {
            latencies.push(performance.now() - sent);
          })
          .finally(() => {
            inFlight.set(key, (inFlight.get(key) ?? 1) - 1);
            pending.delete(p);
          });
        pending.add(p);
      };
      // Streams start spread over one period, so the load is even rather than in bursts.
      keys.forEach((key, i) => {
        timers.push(
          setTimeout(
            () => {
              send(key);
              timers.push(setInterval(() => send(key), period));
            },
            (i * period) / n,
          ),
        );
      });
      await new Promise((r) => setTimeout(r, SECONDS * 1000));
      for (const t of timers) clearTimeout(t);
      const elapsed = (performance.now() - t0) / 1000;
      const cpu = cpuSeconds(pid) - cpu0;
      const putCount = (await puts()) - puts0;
      const storeCpu = cpuSeconds(storePid) - storeCpu0;
      const acked = latencies.length;
      await Promise.allSettled(pending);
      await Promise.all(
        [...sessions.values()].map(
          (session) =>
            new Promise<void>((resolve) => {
              session.on("end", resolve);
              session.on("error", () => resolve());
              session.end();
            }),
        ),
      );
      latencies.sort((a, b) => a - b);
      console.log(
        [
          String(n).padStart(7),
          String(rate).padStart(7),
          (asked / elapsed).toFixed(0).padStart(8),
          (acked / elapsed).toFixed(0).padStart(8),
          quantile(latencies, 0.5).toFixed(1).padStart(8),
          quantile(latencies, 0.99).toFixed(1).padStart(8),
          (putCount / elapsed).toFixed(0).padStart(8),
          ((cpu / elapsed) * 100).toFixed(0).padStart(11),
          ((storeCpu / elapsed) * 100).toFixed(0).padStart(12),
          String(skipped).padStart(8),
        ].join(" "),
      );
    }
  } finally {
    client.close();
    await star.proc.kill("SIGTERM");
    await store.kill("SIGTERM");
    await rm(dir, { recursive: true, force: true });
  }
}
