// `npm run bench:unary-transport`: what one unary gRPC call costs the process that makes it, two
// ways against one star process (embedded s3rver): grpc-js (the gateway's upstream client) and
// a bare gRPC unary call over Node's own HTTP/2 client (one session, a request per call, the
// message framed by hand). Calls: CheckTail (a small request and answer) and Append (one 1 KiB
// record, CLASS_EXPRESS), from BENCH_CONCURRENCY (default 64) loops for BENCH_SECONDS (default
// 4) each. Printed: calls/s and this process's CPU µs per call (utime + stime from /proc), which
// is the client's cost: the star is another process. It measures the room a lighter unary path
// in the gateway would have; no thresholds.

import { mkdtemp, rm } from "node:fs/promises";
import http2 from "node:http2";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exitOnHelp } from "../scripts/help.ts";
import { nova, type RequestOf, type UnaryMethod } from "../src/contract/proto/index.ts";
import { call } from "../test/harness/grpc.ts";
import { startStarProcess } from "../test/harness/star-process.ts";

exitOnHelp(import.meta.filename);

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 64);
const SERVICE = nova.DataPlaneService.service;

/** One unary call over a bare HTTP/2 session: length-prefixed message, status in the trailers. */
function bareUnary<M extends UnaryMethod>(
  session: http2.ClientHttp2Session,
  method: M,
  request: RequestOf<M>,
): Promise<unknown> {
  const def = SERVICE[method];
  const message = def.requestSerialize(request as never) as Buffer;
  const frame = Buffer.allocUnsafe(5 + message.length);
  frame[0] = 0;
  frame.writeUInt32BE(message.length, 1);
  message.copy(frame, 5);
  return new Promise((resolve, reject) => {
    const stream = session.request({
      ":method": "POST",
      ":path": def.path,
      "content-type": "application/grpc",
      te: "trailers",
    });
    const chunks: Buffer[] = [];
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    let status: string | undefined;
    let detail = "";
    const take = (headers: http2.IncomingHttpHeaders) => {
      if (headers["grpc-status"] !== undefined) {
        status = String(headers["grpc-status"]);
        detail = String(headers["grpc-message"] ?? "");
      }
    };
    stream.on("response", take);
    stream.on("trailers", take);
    stream.on("error", reject);
    stream.on("close", () => {
      if (status !== "0") return reject(new Error(`status ${status}: ${detail}`));
      const body = Buffer.concat(chunks);
      resolve(def.responseDeserialize(body.subarray(5, 5 + body.readUInt32BE(1))));
    });
    stream.end(frame);
  });
}

function cpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

async function drive(label: string, once: () => Promise<unknown>): Promise<void> {
  const loop = async (deadline: number) => {
    let n = 0;
    while (performance.now() < deadline) {
      await once();
      n++;
    }
    return n;
  };
  const all = async (seconds: number) => {
    const deadline = performance.now() + seconds * 1000;
    const counts = await Promise.all(Array.from({ length: CONCURRENCY }, () => loop(deadline)));
    return counts.reduce((a, b) => a + b, 0);
  };
  await all(1);
  const cpu0 = cpuMs();
  const started = performance.now();
  const calls = await all(SECONDS);
  const elapsed = (performance.now() - started) / 1000;
  const perCall = ((cpuMs() - cpu0) * 1000) / calls;
  console.log(
    `${label.padEnd(24)}${(calls / elapsed).toFixed(0).padStart(10)}${perCall.toFixed(0).padStart(14)}`,
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
  console.log(`${"call".padEnd(24)}${"calls/s".padStart(10)}${"client µs/call".padStart(14)}`);
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
