// Catch-up reads through ReadPlan and object storage, over real sockets: an s3rver process, a
// star process on it, and two gateways in front of the star, one reading settled history from
// object storage and one sending every read to the star. A stream of 100k records in 100
// chunks; every page must be byte for byte the star's.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { openSse, readUntil, recordsOf } from "../gateway/sse-client.ts";
import type { Gateway } from "../harness/gateway.ts";
import { call, settleStar } from "../harness/grpc.ts";
import { get } from "../harness/http.ts";
import { count } from "../harness/metrics.ts";
import { type StarProcess, s3Storage, startStarProcess } from "../harness/star-process.ts";
import { waitFor } from "../harness/wait.ts";
import {
  appendBatches,
  createStream,
  type Objstore,
  onOffGateways,
  startObjstore,
} from "./fixture.ts";

const BATCHES = 100;
const PER_BATCH = 1000;
const TOTAL = BATCHES * PER_BATCH;
/** Batch b is stamped BASE + 10 b: in the past, so the star keeps the client's stamps. */
const BASE = Date.now() - 100_000_000;
const stamp = (b: number) => BASE + 10 * b;

let dir: string;
let objstore: Objstore;
let star: StarProcess;
let on: Gateway;
let off: Gateway;
const bucket = `cu-${process.pid}`;
const path = `/v1/buckets/${bucket}/streams/history/records`;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "nova-readplan-"));
  objstore = await startObjstore(join(dir, "s3"), ["nova"]);
  star = await startStarProcess(s3Storage(objstore.url));
  ({ on, off } = await onOffGateways([star.address]));
  await createStream(star.client, bucket, "history");
  await appendBatches(star, bucket, "history", 0, BATCHES, PER_BATCH, stamp);
});

after(async () => {
  await on?.close();
  await off?.close();
  star?.client.close();
  await star?.proc.kill();
  await objstore?.proc.kill();
  await rm(dir, { recursive: true, force: true });
});

/** The same request through both gateways: the same status and the same bytes. */
async function same(query: string) {
  const [a, b] = await Promise.all([get(on.base, path + query), get(off.base, path + query)]);
  assert.equal(a.status, b.status, `${query}: ${a.text.slice(0, 200)}`);
  assert.equal(a.text, b.text, query);
  return a;
}

const reads = (g: Gateway) => count(g.metrics.upstreamCalls, { verb: "Read" });

describe("unary reads", () => {
  test("from 0, page by page, raw: the star's pages, without a single Read", async () => {
    const readsBefore = await reads(on);
    const fromStore = await count(on.metrics.readplan.records, { source: "objstore" });
    let next = 0;
    let pages = 0;
    while (next < TOTAL) {
      const page = await same(`?seq_num=${next}&count=1000`);
      assert.equal(page.status, 200);
      assert.match(
        String(page.headers["server-timing"]),
        /^plan;dur=[\d.]+, s3;dur=[\d.]+, star;dur=0$/,
      );
      const records = JSON.parse(page.text).records as { seq_num: number }[];
      assert.equal(records[0]?.seq_num, next);
      next = (records.at(-1)?.seq_num ?? next) + 1;
      pages++;
    }
    assert.equal(pages, TOTAL / 1000);
    assert.equal(await reads(on), readsBefore);
    assert.equal(
      await count(on.metrics.readplan.records, { source: "objstore" }),
      fromStore + TOTAL,
    );
    assert.equal(await count(on.metrics.readplan.fallbacks, {}), 0);
  });

  test("a closed stream's page that ends at its tail says closed, whichever part served it", async () => {
    await call(star.client, "CreateStream", { bucket, key: "closed" });
    await appendBatches(star, bucket, "closed", 0, 2, 5, stamp);
    await call(star.client, "Append", { bucket, key: "closed", records: [], close: true });
    await settleStar(star.address);
    const closedPath = `/v1/buckets/${bucket}/streams/closed/records`;
    const page = async (query: string) => {
      const [a, b] = await Promise.all([
        get(on.base, closedPath + query),
        get(off.base, closedPath + query),
      ]);
      assert.equal(a.text, b.text, query);
      assert.equal(a.headers["cache-control"], b.headers["cache-control"], query);
      return JSON.parse(a.text) as { records: unknown[]; closed?: boolean };
    };
    // Ended by its count at the tail, within the settled chunks: no Read needed to say closed.
    const atTail = await page("?seq_num=0&count=10");
    assert.equal(atTail.records.length, 10);
    assert.equal(atTail.closed, true);
    const before = await page("?seq_num=0&count=5");
    assert.equal(before.closed, undefined);
  });

  test("a second reader is served from the cache: no new fetch", async () => {
    const fetches = await count(on.metrics.readplan.fetches, {});
    const hits = await count(on.metrics.readplan.cacheHits, {});
    for (let next = 0; next < TOTAL; next += 1000) await same(`?seq_num=${next}&count=1000`);
    assert.equal(await count(on.metrics.readplan.fetches, {}), fetches);
    assert.ok((await count(on.metrics.readplan.cacheHits, {})) >= hits + BATCHES);
  });

  test("a client paging through history is read ahead of; a first page or a jump is not", async () => {
    const key = "paged";
    await call(star.client, "CreateStream", { bucket, key });
    await appendBatches(star, bucket, key, 0, 10, PER_BATCH, stamp);
    const pagedPath = `/v1/buckets/${bucket}/streams/${key}/records`;
    const fetches0 = await count(on.metrics.readplan.fetches, {});
    const fetchesReach = (n: number) =>
      waitFor(async () => (await count(on.metrics.readplan.fetches, {})) - fetches0 >= n, {
        message: `${n} chunk fetches`,
      });
    const page = async (seq: number) => {
      const res = await get(on.base, `${pagedPath}?seq_num=${seq}`);
      assert.equal(res.status, 200);
      assert.equal(JSON.parse(res.text).records[0].seq_num, seq);
    };
    // A first page: its chunk and the next one (a page may span two).
    await page(0);
    await fetchesReach(2);
    // It continues the last page: --readplan-prefetch (4) chunks past its own, 1..5.
    await page(1000);
    await fetchesReach(6);
    await page(2000);
    await fetchesReach(7);
    // A jump is a first page again: chunks 8 and 9 only, nothing between.
    await page(8000);
    await fetchesReach(9);
    await page(3000);
    await page(5000);
    assert.equal((await count(on.metrics.readplan.fetches, {})) - fetches0, 9);
  });

  test("from the middle and by timestamp, raw and base64, with bounds", async () => {
    const readsBefore = await reads(on);
    const queries = [
      "?seq_num=50007",
      "?seq_num=50007&format=base64",
      "?seq_num=50007&count=17",
      "?seq_num=49990&bytes=1000",
      "?seq_num=49990&bytes=1&format=base64",
      "?seq_num=0&int64=string&count=3",
      `?timestamp_ms=${stamp(50)}`,
      `?timestamp_ms=${stamp(50)}&format=base64`,
      `?timestamp_ms=${stamp(50) + 5}&count=5`,
      `?timestamp_ms=${stamp(50)}&until_ms=${stamp(51)}&count=1000`,
      `?timestamp_ms=${stamp(50) - 3}&bytes=70000`,
      `?timestamp_ms=0&count=2`,
    ];
    for (const q of queries) assert.equal((await same(q)).status, 200, q);
    // Every page above fills from settled chunks: no Read, by seq_num or by timestamp.
    assert.equal(await reads(on), readsBefore);

    // A page reaching the tail reads the unsettled rest through the star; beyond is 416.
    for (const q of ["?seq_num=99990", `?seq_num=${TOTAL}`, `?seq_num=${TOTAL + 1}`]) await same(q);
    assert.equal((await same(`?seq_num=${TOTAL + 1}`)).status, 416);
    assert.equal((await same(`?seq_num=${TOTAL + 1}&clamp=true`)).status, 200);
    assert.equal((await same(`?timestamp_ms=${stamp(BATCHES) + 1}`)).status, 200);

    // A catch-up from the middle in base64.
    let next = 33_333;
    for (let i = 0; i < 5; i++) {
      const page = JSON.parse((await same(`?seq_num=${next}&format=base64`)).text);
      next = page.records.at(-1).seq_num + 1;
    }
  });
});

describe("SSE", () => {
  test("from 0 while appends run: one unbroken sequence across the handover", async () => {
    const key = "live";
    const sseBucket = `${bucket}-sse`;
    await createStream(star.client, sseBucket, key);
    let tail = await appendBatches(star, sseBucket, key, 0, 20, 500, stamp);
    const fromStore = await count(on.metrics.readplan.records, { source: "objstore" });
    const sse = await openSse(
      `${on.base}/v1/buckets/${sseBucket}/streams/${key}/records?seq_num=0`,
    );
    try {
      assert.equal(sse.status, 200);
      const appending = (async () => {
        for (let b = 0; b < 20; b++) {
          tail = await appendBatches(star, sseBucket, key, tail, 1, 50, () => stamp(20 + b));
        }
      })();
      const target = 20 * 500 + 20 * 50;
      const events = await readUntil(sse.events, (seen) => {
        const got = recordsOf(seen);
        return got.length >= target;
      });
      await appending;
      const seqs = recordsOf(events).map(([seq]) => seq);
      assert.deepEqual(
        seqs,
        Array.from({ length: target }, (_, i) => i),
      );
      // The history came from object storage, and Subscribe took over after it.
      assert.ok(
        (await count(on.metrics.readplan.records, { source: "objstore" })) >= fromStore + 10_000,
      );
      const open = (await on.metrics.upstreamSubscribes.get()).values[0]?.value ?? 0;
      assert.equal(open, 1);
    } finally {
      sse.close();
    }
  });
});
