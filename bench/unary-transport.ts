// `npm run bench:unary-transport`: what one unary gRPC call costs the process that makes it, two
// ways against one star process (embedded s3rver): grpc-js, and the gateway's bare unary call
// over Node's own HTTP/2 client (src/gateway/upstream/h2-unary.ts: one session, a request per
// call, the message framed by hand). Calls: CheckTail (a small request and answer) and Append
// (one 1 KiB record, CLASS_EXPRESS), from BENCH_CONCURRENCY (default 64) loops for BENCH_SECONDS
// (default 4) each. Printed: calls/s and this process's CPU µs per call (utime + stime), which is
// the client's cost: the star is another process. No thresholds.

import "../scripts/help-first.ts";
import { mkdtemp, rm } from "node:fs/promises";
import http2 from "node:http2";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { call } from "../test/harness/grpc.ts";
import { startStarProcess } from "../test/harness/star-process.ts";
import { bareUnary } from "./bare-unary.ts";
import { measureLoops } from "./loops.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 64);
async function drive(label: string, once: () => Promise<unknown>): Promise<void> {
  const { perSecond, cpuUsPerCall } = await measureLoops(CONCURRENCY, SECONDS, once);
  console.log(
    `${label.padEnd(24)}${perSecond.toFixed(0).padStart(10)}${cpuUsPerCall.toFixed(0).padStart(16)}`,
  );
}

const dir = await mkdtemp(join(tmpdir(), "nova-bench-unary-"));
const star = await startStarProcess(["--data-dir", dir]);
const session = http2.connect(`http://${star.address}`);
try {
  await call(star.client, "CreateBucket", { name: "bench" });
  await call(star.client, "CreateStream", {
    bucket: "bench",
    key: "s",
    config: { class: "CLASS_EXPRESS" },
  });
  const tail = { bucket: "bench", key: "s" };
  const append = { bucket: "bench", key: "s", records: [{ body: Buffer.alloc(1024, 120) }] };
  console.log(`unary calls to one star, ${CONCURRENCY} at a time, ${SECONDS} s each`);
  console.log(`${"call".padEnd(24)}${"calls/s".padStart(10)}${"client µs/call".padStart(16)}`);
  await drive("CheckTail, grpc-js", () => call(star.client, "CheckTail", tail));
  await drive("CheckTail, bare HTTP/2", () => bareUnary(session, "CheckTail", tail));
  await drive("Append, grpc-js", () => call(star.client, "Append", append));
  await drive("Append, bare HTTP/2", () => bareUnary(session, "Append", append));
} finally {
  session.close();
  star.client.close();
  await star.proc.kill("SIGTERM");
  await rm(dir, { recursive: true, force: true });
}
