// `npm run bench:s3-client`: what S3's requests cost the process that makes them, the store's own
// client (src/platform/objstore/s3-http.ts, what stars and gateways use) beside the AWS SDK's
// S3Client configured as the store had it, against one `npm run objstore` process (s3rver):
// PUTs and GETs of BENCH_S3_OBJECT_KIB (default 1) KiB objects, and lists of 100 keys, from
// BENCH_CONCURRENCY (default 8) loops for BENCH_SECONDS (default 3) each after a second of the
// same. Printed: requests/s and this process's CPU µs per request (utime + stime): the client's
// cost, s3rver being another process. No thresholds.

import "../scripts/help-first.ts";
import { mkdtemp, rm } from "node:fs/promises";
import { Agent } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  GetObjectCommand,
  ListObjectsCommand,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import { createS3Store } from "../src/platform/objstore/index.ts";
import { nodeArgs, startProcess } from "../test/harness/process.ts";
import { measureLoops } from "./loops.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const OBJECT_KIB = Number(process.env.BENCH_S3_OBJECT_KIB ?? 1);
const BUCKET = "bench";

async function drive(label: string, once: (i: number) => Promise<unknown>): Promise<void> {
  const { perSecond, cpuUsPerCall } = await measureLoops(CONCURRENCY, SECONDS, (i) =>
    once(i % 1000),
  );
  console.log(
    `${label.padEnd(20)}${perSecond.toFixed(0).padStart(12)}${cpuUsPerCall.toFixed(0).padStart(18)}`,
  );
}

const dir = await mkdtemp(join(tmpdir(), "nova-bench-s3-"));
const [node, args] = nodeArgs("src/platform/objstore/main.ts", []);
const objstore = await startProcess({
  command: node,
  args: [...args, "--port", "0", "--data-dir", dir, "--bucket", BUCKET],
  readyLine: /^http:\/\/127\.0\.0\.1:\d+$/,
});
const endpoint = objstore.match[0];
const store = createS3Store({ endpoint, bucket: BUCKET });
const sdk = new S3Client({
  endpoint,
  region: "us-east-1",
  forcePathStyle: true,
  credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
  requestChecksumCalculation: "WHEN_REQUIRED",
  responseChecksumValidation: "WHEN_REQUIRED",
  requestHandler: { httpAgent: new Agent({ keepAlive: true, maxSockets: 64 }) },
});
try {
  const body = Buffer.alloc(OBJECT_KIB * 1024, 120);
  for (let i = 0; i < 100; i++) await store.put(`list/${i}`, body);
  for (let i = 0; i < 1000; i++) await store.put(`o/${i}`, body);
  console.log(
    `S3 requests to one s3rver, ${CONCURRENCY} at a time, ${SECONDS} s each, ${OBJECT_KIB} KiB objects`,
  );
  console.log(
    `${"request".padEnd(20)}${"requests/s".padStart(12)}${"client µs/request".padStart(18)}`,
  );
  await drive("PUT, store", (i) => store.put(`w/${i}`, body));
  await drive("PUT, AWS SDK", (i) =>
    sdk.send(new PutObjectCommand({ Bucket: BUCKET, Key: `w/${i}`, Body: body })),
  );
  await drive("GET, store", async (i) => {
    if ((await store.get(`o/${i}`)) === undefined) throw new Error(`o/${i} is missing`);
  });
  await drive("GET, AWS SDK", async (i) => {
    const out = await sdk.send(new GetObjectCommand({ Bucket: BUCKET, Key: `o/${i}` }));
    return out.Body?.transformToByteArray();
  });
  await drive("LIST 100, store", () => store.list("list/"));
  await drive("LIST 100, AWS SDK", () =>
    sdk.send(new ListObjectsCommand({ Bucket: BUCKET, Prefix: "list/", MaxKeys: 1000 })),
  );
} finally {
  store.close();
  sdk.destroy();
  await objstore.kill("SIGTERM");
  await rm(dir, { recursive: true, force: true });
}
