// A stream of 100k records over many chunks is served exactly by Read from the start, the
// middle and by timestamp.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { call } from "../harness/grpc.ts";
import { type StarFixture, startStarFixture, uniqueBucket } from "./fixture.ts";

let f: StarFixture;
const bucket = uniqueBucket("hist");
const BATCHES = 100;
const PER_BATCH = 1000;
const base = Date.now() - 10_000_000;

const body = (seq: number) => Buffer.from(`record-${seq}`);

before(async () => {
  f = await startStarFixture();
  await call(f.client, "CreateBucket", { name: bucket });
  await call(f.client, "CreateStream", { bucket, key: "big", config: { class: "CLASS_EXPRESS" } });
  for (let b = 0; b < BATCHES; b++) {
    await call(f.client, "Append", {
      bucket,
      key: "big",
      records: Array.from({ length: PER_BATCH }, (_, i) => ({
        body: body(b * PER_BATCH + i),
        headers: i % 10 === 0 ? [{ name: Buffer.from("n"), value: Buffer.from(String(i)) }] : [],
        timestamp_ms: String(base + b * 1000),
      })),
    });
  }
});
after(() => f.close());

async function readAll(start: { seq_num?: string; timestamp_ms?: string }, limit: number) {
  const seqs: number[] = [];
  let request = { bucket, key: "big", ...start };
  while (seqs.length < limit) {
    const page = await call(f.client, "Read", request);
    if (page.records.length === 0) break;
    for (const r of page.records) {
      const seq = Number(r.seq_num);
      assert.deepEqual(r.body, body(seq));
      assert.equal(r.timestamp_ms, String(base + Math.floor(seq / PER_BATCH) * 1000));
      assert.equal(r.headers.length, seq % 10 === 0 ? 1 : 0);
      seqs.push(seq);
    }
    request = { bucket, key: "big", seq_num: String((seqs[seqs.length - 1] as number) + 1) };
  }
  return seqs;
}

test("from the start: every record, in order, exactly", async () => {
  const seqs = await readAll({ seq_num: "0" }, Number.POSITIVE_INFINITY);
  assert.equal(seqs.length, BATCHES * PER_BATCH);
  seqs.forEach((s, i) => {
    if (s !== i) assert.fail(`position ${i} holds seq ${s}`);
  });
});

test("from the middle", async () => {
  const seqs = await readAll({ seq_num: "54321" }, 3000);
  assert.deepEqual(
    seqs.slice(0, 3000),
    Array.from({ length: 3000 }, (_, i) => 54321 + i),
  );
});

test("by timestamp: the first record stamped at or after it", async () => {
  const seqs = await readAll({ timestamp_ms: String(base + 42 * 1000 - 500) }, 10);
  assert.equal(seqs[0], 42 * PER_BATCH);
  const tail = await call(f.client, "Read", {
    bucket,
    key: "big",
    timestamp_ms: String(Date.now()),
  });
  assert.equal(tail.records.length, 0);
  assert.equal(tail.tail?.seq_num, String(BATCHES * PER_BATCH));
});
