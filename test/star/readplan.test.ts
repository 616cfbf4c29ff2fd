// ReadPlan on a real star process over s3rver: its entries, fetched by their presigned URLs
// (undici) or by bucket and key and decoded with the chunk codec, hold exactly the records Read
// returns: from the start, the middle, by timestamp, after a trim. Refusals, clamping, limits.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { status } from "@grpc/grpc-js";
import { request } from "undici";
import {
  type DecodedChunkRecord,
  decodeChunk,
  decodeChunkSlice,
  decodeFooter,
  payloadRange,
} from "../../src/contract/codec/index.ts";
import { findDetail } from "../../src/contract/proto/index.ts";
import type { DataPlaneServiceClient } from "../../src/gen/nova/v1/DataPlaneService.ts";
import type { ReadPlanEntry__Output } from "../../src/gen/nova/v1/ReadPlanEntry.ts";
import type { ReadPlanRequest } from "../../src/gen/nova/v1/ReadPlanRequest.ts";
import type { ReadPlanResponse__Output } from "../../src/gen/nova/v1/ReadPlanResponse.ts";
import type { ReadRequest } from "../../src/gen/nova/v1/ReadRequest.ts";
import type { Record__Output } from "../../src/gen/nova/v1/Record.ts";
import type { ObjectStore } from "../../src/platform/objstore/index.ts";
import {
  createS3Store,
  type RunningS3rver,
  startS3rver,
} from "../../src/platform/objstore/index.ts";
import { call, refusal, settleStar } from "../harness/grpc.ts";
import { type StarProcess, s3Storage, startStarProcess } from "../harness/star-process.ts";
import { waitFor } from "../harness/wait.ts";

const MAX_ENTRIES = 10;
const TTL_SECONDS = 120;
const BATCHES = 30;
const PER_BATCH = 100;
const TOTAL = BATCHES * PER_BATCH;
const base = Date.now() - 10_000_000;
const bucket = "plans";

let dir: string;
let s3: RunningS3rver;
let store: ObjectStore;
let star: StarProcess;
/** A second star on the same store that names chunks by bucket and key; it only plans. */
let objectStar: StarProcess;
let client: DataPlaneServiceClient;

const storage = () => s3Storage(s3.url);

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "nova-readplan-"));
  s3 = await startS3rver({ port: 0, dataDir: dir, buckets: ["nova"] });
  store = createS3Store({ endpoint: s3.url, bucket: "nova" });
  [star, objectStar] = await Promise.all([
    startStarProcess(storage(), {
      args: [
        "--readplan-max-entries",
        String(MAX_ENTRIES),
        "--readplan-ttl-seconds",
        String(TTL_SECONDS),
      ],
    }),
    startStarProcess(storage(), { args: ["--readplan-urls=object"] }),
  ]);
  client = star.client;
  await call(client, "CreateBucket", { name: bucket });
  for (const key of ["s", "trimmed"]) {
    await call(client, "CreateStream", { bucket, key });
    for (let b = 0; b < BATCHES; b++) {
      await call(client, "Append", {
        bucket,
        key,
        records: Array.from({ length: PER_BATCH }, (_, i) => {
          const seq = b * PER_BATCH + i;
          return {
            body: Buffer.from(`${key} ${seq} `.repeat(1 + (seq % 13))),
            headers:
              seq % 4 === 0
                ? [
                    { name: Buffer.from("seq"), value: Buffer.from(String(seq)) },
                    { name: Buffer.from("raw"), value: Buffer.from([seq % 256, 0, 255]) },
                  ]
                : [],
            timestamp_ms: String(base + b * 10),
          };
        }),
      });
      // One chunk per batch: settled before the next.
      await settleStar(star.address);
    }
  }
});

after(async () => {
  for (const s of [star, objectStar]) {
    s?.client.close();
    await s?.proc.kill("SIGTERM");
  }
  store?.close();
  await s3?.close();
  await rm(dir, { recursive: true, force: true });
});

/** A record as plain comparable values, whether Read served it or the codec decoded it. */
type Plain = { seq: string; ts: string; body: string; headers: string[][] };
const b64 = (b: Uint8Array) => Buffer.from(b).toString("base64");
const fromRead = (r: Record__Output): Plain => ({
  seq: r.seq_num,
  ts: r.timestamp_ms,
  body: b64(r.body),
  headers: r.headers.map((h) => [b64(h.name), b64(h.value)]),
});
const fromCodec = (r: DecodedChunkRecord): Plain => ({
  seq: r.seqNum.toString(),
  ts: r.timestampMs.toString(),
  body: b64(r.body),
  headers: r.headers.map((h) => [b64(h.name), b64(h.value)]),
});

async function readAll(req: ReadRequest, c = client): Promise<Plain[]> {
  const out: Plain[] = [];
  let page = await call(c, "Read", req);
  while (page.records.length > 0) {
    out.push(...page.records.map(fromRead));
    const next = String(BigInt((page.records.at(-1) as Record__Output).seq_num) + 1n);
    page = await call(c, "Read", { bucket: req.bucket, key: req.key, seq_num: next });
  }
  return out;
}

/** Plans from `start` to the end, re-planning from vended_until while `more`. */
async function planAll(req: ReadPlanRequest, c = client): Promise<ReadPlanEntry__Output[]> {
  const entries: ReadPlanEntry__Output[] = [];
  let plan = await call(c, "ReadPlan", req);
  entries.push(...plan.entries);
  while (plan.more) {
    plan = await call(c, "ReadPlan", {
      bucket: req.bucket,
      key: req.key,
      seq_num: plan.vended_until,
    });
    entries.push(...plan.entries);
  }
  return entries;
}

async function fetchUrl(url: string, range?: [number, number]): Promise<Buffer> {
  const res = await request(
    url,
    range ? { headers: { range: `bytes=${range[0]}-${range[1] - 1}` } } : {},
  );
  assert.equal(res.statusCode, range ? 206 : 200, url);
  return Buffer.from(await res.body.arrayBuffer());
}

async function decodeEntry(e: ReadPlanEntry__Output): Promise<DecodedChunkRecord[]> {
  const bytes =
    e.location === "url"
      ? await fetchUrl(e.url as string)
      : await store.get(e.object?.object_key as string);
  assert.ok(bytes, "the chunk exists");
  assert.equal(bytes.length, Number(e.footer_off) + e.footer_len, "footer ends the object");
  const { footer, records } = decodeChunk(bytes);
  assert.equal(String(footer.firstSeqNum), e.first_seq_num);
  assert.equal(String(footer.payloadBytes), e.payload_bytes);
  assert.equal(e.footer_off, e.payload_bytes);
  const ts = records.map((r) => r.timestampMs).sort((a, b) => Number(a - b));
  assert.equal(e.min_timestamp_ms, String(ts[0]));
  assert.equal(e.max_timestamp_ms, String(ts.at(-1)));
  return records;
}

/** What a reader does with a plan: entries in order, skipping what lies before its start. */
async function decodePlan(
  entries: ReadPlanEntry__Output[],
  skip: (r: DecodedChunkRecord) => boolean,
): Promise<Plain[]> {
  const out: Plain[] = [];
  let expectFirst: string | undefined;
  for (const e of entries) {
    if (expectFirst !== undefined) assert.equal(e.first_seq_num, expectFirst, "contiguous");
    const records = await decodeEntry(e);
    expectFirst = String(BigInt(e.first_seq_num) + BigInt(records.length));
    out.push(...records.filter((r) => !skip(r)).map(fromCodec));
  }
  return out;
}

describe("entries hold exactly what Read returns", () => {
  const s = { bucket, key: "s" };

  test("from 0, through presigned URLs, re-planning while more", async () => {
    const first = await call(client, "ReadPlan", { ...s, seq_num: "0" });
    assert.equal(first.entries.length, MAX_ENTRIES, "limit 0 takes the default, at most the max");
    assert.equal(first.more, true);
    const entries = await planAll({ ...s, seq_num: "0" });
    assert.equal(entries.length, BATCHES, "one chunk per append");
    assert.ok(entries.every((e) => e.location === "url"));
    const planned = await decodePlan(entries, () => false);
    assert.equal(planned.length, TOTAL);
    assert.deepEqual(planned, await readAll({ ...s, seq_num: "0" }));
  });

  test("from the middle of a chunk: the first entry holds the start", async () => {
    const entries = await planAll({ ...s, seq_num: "1234" });
    assert.equal(entries[0]?.first_seq_num, "1200");
    const planned = await decodePlan(entries, (r) => r.seqNum < 1234n);
    assert.deepEqual(planned, await readAll({ ...s, seq_num: "1234" }));
  });

  test("by timestamp: entries from the first chunk stamped at or after it", async () => {
    const at = base + 17 * 10 - 3;
    const entries = await planAll({ ...s, timestamp_ms: String(at) });
    assert.equal(entries[0]?.first_seq_num, "1700");
    const planned = await decodePlan(entries, (r) => r.timestampMs < BigInt(at));
    assert.deepEqual(planned, await readAll({ ...s, timestamp_ms: String(at) }));
    // Past every record: nothing to vend.
    const late = await call(client, "ReadPlan", { ...s, timestamp_ms: String(base + 1e6) });
    assert.deepEqual(late.entries, []);
    assert.equal(late.vended_until, undefined);
  });

  test("two ranged GETs: the footer, then the payload slice of the records wanted", async () => {
    const plan = await call(client, "ReadPlan", { ...s, seq_num: "520", limit: 1 });
    const e = plan.entries[0] as ReadPlanEntry__Output;
    assert.equal(plan.entries.length, 1);
    assert.equal(plan.more, true);
    assert.equal(plan.vended_until, "600");
    const footerOff = Number(e.footer_off);
    const footer = decodeFooter(
      await fetchUrl(e.url as string, [footerOff, footerOff + e.footer_len]),
    );
    const from = 520 - Number(e.first_seq_num);
    const { start, end } = payloadRange(footer, from, from + 30);
    const slice = await fetchUrl(e.url as string, [start, end]);
    const records = decodeChunkSlice(footer, slice, from, from + 30).map(fromCodec);
    const read = await call(client, "Read", { ...s, seq_num: "520", count: 30 });
    assert.deepEqual(records, read.records.map(fromRead));
  });

  test("named by bucket and key (--readplan-urls=object), the same records", async () => {
    const plan = await call(objectStar.client, "ReadPlan", { ...s, seq_num: "0", limit: 3 });
    assert.equal(plan.entries.length, 3);
    for (const e of plan.entries) {
      assert.equal(e.location, "object");
      assert.equal(e.url, undefined);
      assert.equal(e.object?.storage_bucket, "nova");
    }
    const planned = await decodePlan(plan.entries, () => false);
    assert.deepEqual(planned, (await readAll({ ...s, seq_num: "0" })).slice(0, 300));
  });

  test("every URL is good until expires_at_unix_ms, at least half the TTL away", async () => {
    for (let round = 0; round < 2; round++) {
      // The second round gets the URLs signed in the first again: chunks never change.
      const before = Date.now();
      const plan = await call(client, "ReadPlan", { ...s, seq_num: "0", limit: 2 });
      const afterMs = Date.now();
      const expires = Number(plan.expires_at_unix_ms);
      assert.ok(expires >= before + (TTL_SECONDS * 1000) / 2 - 1000, `${expires - before}`);
      assert.ok(expires <= afterMs + TTL_SECONDS * 1000);
      for (const e of plan.entries) {
        const url = new URL(e.url as string);
        const signed = Date.parse(
          (url.searchParams.get("X-Amz-Date") ?? "").replace(
            /^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/,
            "$1-$2-$3T$4:$5:$6Z",
          ),
        );
        const lifetime = Number(url.searchParams.get("X-Amz-Expires")) * 1000;
        assert.equal(lifetime, TTL_SECONDS * 1000);
        assert.ok(signed + lifetime >= expires, "the URL outlives the plan");
      }
    }
  });
});

describe("after a trim", () => {
  const s = { bucket, key: "trimmed" };

  before(async () => {
    // 1550 lies inside the chunk [1500, 1600).
    await call(client, "Trim", { ...s, seq_num: "1550" });
  });

  test("no entry holds a trimmed record; the gap before the first entry is read through Read", async () => {
    for (const start of [
      { seq_num: "0" },
      { seq_num: "1549" },
      { seq_num: "1570" },
      { timestamp_ms: "0" },
    ]) {
      const entries = await planAll({ ...s, ...start });
      assert.equal(entries[0]?.first_seq_num, "1600", JSON.stringify(start));
      // The reader's rule: Read from its cursor up to the first entry, then the entries.
      const cursor = start.seq_num ?? "0";
      const gap = await call(client, "Read", { ...s, seq_num: cursor, count: 1000 });
      const head = gap.records.map(fromRead).filter((r) => BigInt(r.seq) < 1600n);
      const planned = await decodePlan(entries, () => false);
      const expected = await readAll({ ...s, seq_num: cursor });
      assert.deepEqual([...head, ...planned], expected, JSON.stringify(start));
      assert.equal(expected[0]?.seq, start.seq_num === "1570" ? "1570" : "1550");
    }
  });

  test("a plan starting at a chunk boundary above the trim point is untouched", async () => {
    const entries = await planAll({ ...s, seq_num: "1600" });
    assert.equal(entries.length, BATCHES - 16);
    assert.deepEqual(
      await decodePlan(entries, () => false),
      await readAll({ ...s, seq_num: "1600" }),
    );
  });

  test("reclaimed chunks are never named", async () => {
    // Retention reclaims the chunks wholly below the trim point in the background.
    await waitFor(
      async () => {
        const listed = await store.list("chunks/", { limit: 1000 });
        return listed.objects.length <= 2 * BATCHES - 15;
      },
      { timeoutMs: 20_000, message: "trimmed chunks reclaimed" },
    );
    const entries = await planAll({ ...s, seq_num: "0" });
    for (const e of entries) await decodeEntry(e);
  });
});

describe("refusals and bounds", () => {
  const s = { bucket, key: "s" };

  test("a start past the tail is OUT_OF_RANGE, and the refusal does not name the tail", async () => {
    const err = await refusal(call(client, "ReadPlan", { ...s, seq_num: String(TOTAL + 1) }));
    assert.equal(err.code, status.OUT_OF_RANGE);
    assert.equal(findDetail(err.metadata, "TailDetail"), undefined);
  });

  test("clamp turns a start past the tail into an empty plan; at the tail it is empty", async () => {
    for (const req of [
      { ...s, seq_num: String(TOTAL + 100), clamp: true },
      { ...s, seq_num: String(TOTAL) },
    ]) {
      const plan = await call(client, "ReadPlan", req);
      assert.deepEqual(plan.entries, []);
      assert.equal(plan.vended_until, undefined);
      assert.equal(plan.more, false);
    }
  });

  test("limit cuts the plan with more and vended_until; above the max it is clamped", async () => {
    const plan = await call(client, "ReadPlan", { ...s, seq_num: "0", limit: 3 });
    assert.deepEqual(
      plan.entries.map((e) => e.first_seq_num),
      ["0", "100", "200"],
    );
    assert.equal(plan.more, true);
    assert.equal(plan.vended_until, "300");
    const big = await call(client, "ReadPlan", { ...s, seq_num: "0", limit: 1000 });
    assert.equal(big.entries.length, MAX_ENTRIES);
    assert.equal(big.vended_until, String(MAX_ENTRIES * PER_BATCH));
    const tail = await call(client, "ReadPlan", { ...s, seq_num: "2950", limit: 1000 });
    assert.equal(tail.entries.length, 1);
    assert.equal(tail.more, false);
    assert.equal(tail.vended_until, String(TOTAL));
  });

  test("a missing stream or bucket is NOT_FOUND, and a plan never creates a stream", async () => {
    await call(client, "CreateBucket", {
      name: "lazy",
      config: { create_stream_on_read: true },
    });
    for (const [b, key] of [
      [bucket, "nope"],
      ["no-such-bucket", "s"],
      ["lazy", "never"],
    ] as const) {
      const err = await refusal(call(client, "ReadPlan", { bucket: b, key, seq_num: "0" }));
      assert.equal(err.code, status.NOT_FOUND, `${b}/${key}`);
    }
    const err = await refusal(call(client, "GetStream", { bucket: "lazy", key: "never" }));
    assert.equal(err.code, status.NOT_FOUND);
  });

  test("an empty stream plans nothing; a deleted one is NOT_FOUND", async () => {
    await call(client, "CreateStream", { bucket, key: "empty" });
    const plan = await call(client, "ReadPlan", { bucket, key: "empty", seq_num: "0" });
    assert.deepEqual(plan.entries, []);
    assert.equal(plan.vended_until, undefined);
    await call(client, "DeleteStream", { bucket, key: "empty" });
    const err = await refusal(call(client, "ReadPlan", { bucket, key: "empty", seq_num: "0" }));
    assert.equal(err.code, status.NOT_FOUND);
  });

  test("bad requests are INVALID_ARGUMENT: no start, a bad bucket name, an empty key", async () => {
    for (const req of [
      { ...s },
      { bucket: "B!", key: "s", seq_num: "0" },
      { bucket, key: "", seq_num: "0" },
    ]) {
      const err = await refusal(call(client, "ReadPlan", req));
      assert.equal(err.code, status.INVALID_ARGUMENT, JSON.stringify(req));
    }
  });
});

describe("ReadPlan response shape", () => {
  test("entries carry every field; vended_until is the end of the last entry", async () => {
    const plan: ReadPlanResponse__Output = await call(client, "ReadPlan", {
      bucket,
      key: "s",
      seq_num: "0",
      limit: 2,
    });
    const [a, b] = plan.entries as [ReadPlanEntry__Output, ReadPlanEntry__Output];
    assert.equal(a.first_seq_num, "0");
    assert.equal(b.first_seq_num, "100");
    assert.equal(a.min_timestamp_ms, String(base));
    assert.equal(b.max_timestamp_ms, String(base + 10));
    assert.ok(Number(a.payload_bytes) > 0 && a.footer_len > 0);
    assert.equal(plan.vended_until, "200");
  });
});
