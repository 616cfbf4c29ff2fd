// What a catch-up read does when object storage fails it: a chunk with a flipped byte, a
// missing chunk, an expired presigned URL, a stopped object store. That range is read through
// the star instead, never served altered, and each fallback is counted by reason. Real s3rver
// process, real star processes (one per bucket), gateways in this process.
import assert from "node:assert/strict";
import { mkdtemp, open, readdir, rm } from "node:fs/promises";
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Gateway } from "../harness/gateway.ts";
import { get } from "../harness/http.ts";
import { count } from "../harness/metrics.ts";
import { type StarProcess, s3Storage, startStarProcess } from "../harness/star-process.ts";
import {
  appendBatches,
  createStream,
  type Objstore,
  type OnOff,
  onOffGateways,
  startObjstore,
} from "./fixture.ts";

let dir: string;
let objstore: Objstore;
let proxy: Server;
let held = 0;
/** No chunk cache: this star reads every chunk from the store, and refuses a corrupt one. */
let uncached: StarProcess;
/**
 * The default cache: this star still has the chunks it has read, and each stream's newest it
 * wrote, when the store fails.
 */
let cached: StarProcess;
/** Behind the proxy, with 1 s plans: its URLs reach the store expired. */
let expiring: StarProcess;
const gateways: Gateway[] = [];
const pair = async (s: StarProcess) => {
  const g = await onOffGateways([s.address]);
  gateways.push(g.on, g.off);
  return g;
};
let uncachedGw: OnOff;
let cachedGw: OnOff;
let expiringGw: OnOff;

/**
 * Forwards to the store; a presigned GET is held until its URL has expired (its X-Amz-Date
 * plus X-Amz-Expires, and a second for the store's whole-second clock), then forwarded.
 */
function startExpiringProxy(target: string): Promise<Server> {
  const to = new URL(target);
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://proxy");
    const forward = () => {
      const up = httpRequest(
        {
          host: to.hostname,
          port: to.port,
          method: req.method,
          path: req.url,
          headers: req.headers,
        },
        (upRes) => {
          res.writeHead(upRes.statusCode ?? 502, upRes.headers);
          upRes.pipe(res);
        },
      );
      up.on("error", () => res.destroy());
      req.pipe(up);
    };
    const date = url.searchParams.get("X-Amz-Date");
    const expires = url.searchParams.get("X-Amz-Expires");
    if (req.method !== "GET" || date === null || expires === null) return forward();
    const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(date);
    assert.ok(m, date);
    const [, y, mo, d, h, mi, s] = m.map(Number) as number[];
    const expiry = Date.UTC(y as number, (mo as number) - 1, d, h, mi, s) + Number(expires) * 1000;
    held++;
    setTimeout(forward, Math.max(0, expiry + 1000 - Date.now()));
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "nova-readplan-faults-"));
  objstore = await startObjstore(join(dir, "s3"), ["nova-a", "nova-b", "nova-c"]);
  proxy = await startExpiringProxy(objstore.url);
  const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  [uncached, cached, expiring] = await Promise.all([
    startStarProcess(s3Storage(objstore.url, "nova-a"), { args: ["--chunk-cache-mb", "0"] }),
    startStarProcess(s3Storage(objstore.url, "nova-b")),
    startStarProcess(s3Storage(proxyUrl, "nova-c"), { args: ["--readplan-ttl-seconds", "1"] }),
  ]);
  uncachedGw = await pair(uncached);
  cachedGw = await pair(cached);
  expiringGw = await pair(expiring);
});

after(async () => {
  for (const g of gateways) await g.close();
  for (const s of [uncached, cached, expiring]) {
    s?.client.close();
    await s?.proc.kill();
  }
  proxy?.closeAllConnections();
  proxy?.close();
  await objstore?.proc.kill();
  await rm(dir, { recursive: true, force: true });
});

/** A stream of three chunks of 100 records; returns its records path. */
async function threeChunks(star: StarProcess, bucket: string): Promise<string> {
  await createStream(star.client, bucket, "s");
  await appendBatches(star, bucket, "s", 0, 3, 100, (b) => Date.now() - 1000 + b);
  return `/v1/buckets/${bucket}/streams/s/records`;
}

/** The files holding a store bucket's chunk objects, in seq_num order. */
async function chunkFiles(storeBucket: string): Promise<string[]> {
  const root = join(dir, "s3", storeBucket, "chunks");
  const files: string[] = [];
  for (const stream of await readdir(root)) {
    for (const f of await readdir(join(root, stream))) {
      if (f.endsWith("._S3rver_object")) files.push(join(root, stream, f));
    }
  }
  return files.sort();
}

async function flipByte(file: string, at: number): Promise<void> {
  const fh = await open(file, "r+");
  try {
    const b = Buffer.alloc(1);
    await fh.read(b, 0, 1, at);
    b[0] = (b[0] as number) ^ 0x40;
    await fh.write(b, 0, 1, at);
  } finally {
    await fh.close();
  }
}

const fallbacks = (g: Gateway, reason: string) => count(g.metrics.readplan.fallbacks, { reason });

/** Reads the whole stream at `path` through the star, as a reader before the failure would. */
async function readThroughStar(g: OnOff, path: string): Promise<void> {
  const r = await get(g.off.base, `${path}?seq_num=0`);
  assert.equal(r.status, 200, r.text);
  assert.equal(JSON.parse(r.text).records.length, 300);
}

/** `path` through the object-storage gateway, then the star's: 200, the same bytes. */
async function served(g: OnOff, path: string) {
  const a = await get(g.on.base, path);
  const b = await get(g.off.base, path);
  assert.equal(a.status, 200, a.text);
  assert.equal(a.text, b.text);
  return a;
}

test("a corrupt chunk is never served: the star, reading the same bytes, refuses it too", async () => {
  const path = await threeChunks(uncached, `fa-${process.pid}`);
  const [, middle] = await chunkFiles("nova-a");
  await flipByte(middle as string, 10);
  const { on, off } = uncachedGw;

  const whole = await get(on.base, `${path}?seq_num=0`);
  assert.equal(whole.status, 503, whole.text);
  assert.equal(JSON.parse(whole.text).code, "unavailable");
  assert.match(JSON.parse(whole.text).message, /chunk \S+ is damaged/);
  assert.equal((await get(off.base, `${path}?seq_num=0`)).status, 503);
  assert.equal(await fallbacks(on, "corrupt"), 1);

  // The chunks around it are served, and equal the star's.
  for (const q of ["?seq_num=0&count=100", "?seq_num=200"]) await served(uncachedGw, path + q);
});

test("a corrupt or missing chunk is read through the star, which still has it", async () => {
  const path = await threeChunks(cached, `fb-${process.pid}`);
  await readThroughStar(cachedGw, path);
  const [first, middle] = await chunkFiles("nova-b");
  await flipByte(middle as string, 3);
  await rm(first as string);
  const { on } = cachedGw;
  const a = await served(cachedGw, `${path}?seq_num=0`);
  assert.equal(JSON.parse(a.text).records.length, 300);
  assert.equal(await fallbacks(on, "corrupt"), 1);
  assert.equal(await fallbacks(on, "missing"), 1);
  assert.equal(await count(on.metrics.readplan.records, { source: "star" }), 200);
  assert.match(String(a.headers["server-timing"]), /star;dur=(?!0$)/);
});

test("an expired presigned URL is read through the star", async () => {
  const path = await threeChunks(expiring, `fc-${process.pid}`);
  const { on } = expiringGw;
  await served(expiringGw, `${path}?seq_num=0`);
  assert.ok(held > 0);
  assert.ok((await fallbacks(on, "forbidden")) >= 1);
  assert.ok((await count(on.metrics.readplan.fetches, { outcome: "forbidden" })) >= 1);
  assert.equal(await count(on.metrics.readplan.fetches, { outcome: "ok" }), 0);
});

test("a stopped object store: every chunk the star holds is read through it", async () => {
  const path = await threeChunks(cached, `fd-${process.pid}`);
  await readThroughStar(cachedGw, path);
  // Written and never read: the star keeps only its newest chunk.
  const unread = await threeChunks(cached, `fe-${process.pid}`);
  await objstore.proc.kill();
  const { on } = cachedGw;
  const before = await fallbacks(on, "unavailable");
  const a = await served(cachedGw, `${path}?seq_num=0`);
  assert.equal(JSON.parse(a.text).records.length, 300);
  assert.equal(await fallbacks(on, "unavailable"), before + 3);

  const newest = await served(cachedGw, `${unread}?seq_num=200`);
  assert.deepEqual(
    JSON.parse(newest.text).records.map((r: { seq_num: number }) => r.seq_num),
    Array.from({ length: 100 }, (_, i) => 200 + i),
  );
  const older = await get(on.base, `${unread}?seq_num=0`);
  assert.equal(older.status, 503, older.text);
  assert.equal(JSON.parse(older.text).retryable, true);
});
