// A star killed with SIGKILL and restarted on the same store serves every acked record with the
// same seq_num, timestamp, headers and body, the same tail, trim point and fencing token; an
// unacked batch is either whole or absent; a damaged log object holding an acked record is
// refused, never passed over. A graceful shutdown ends subscriptions UNAVAILABLE.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type ServiceError, status } from "@grpc/grpc-js";
import type { DataPlaneServiceClient } from "../../src/gen/nova/v1/DataPlaneService.ts";
import {
  createS3Store,
  type RunningS3rver,
  startS3rver,
} from "../../src/platform/objstore/index.ts";
import { call } from "../harness/grpc.ts";
import { startStarProcess } from "../harness/star-process.ts";
import { waitFor } from "../harness/wait.ts";

let dir: string;
let s3: RunningS3rver;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "nova-durability-"));
  s3 = await startS3rver({ port: 0, dataDir: dir, buckets: ["nova"] });
});
after(async () => {
  await s3.close();
  await rm(dir, { recursive: true, force: true });
});

const startStar = () => startStarProcess(["--s3-endpoint", s3.url, "--s3-bucket", "nova"]);

interface Acked {
  start: number;
  timestamp: string;
  bodies: string[];
}

test("SIGKILL during concurrent appends loses nothing acked and no part of a batch", async (t) => {
  let star = await startStar();
  let stop = false;
  // Also when a step fails: the producers stop and whichever star runs is killed.
  t.after(async () => {
    stop = true;
    star.client.close();
    await star.proc.kill("SIGKILL");
  });
  const bucket = "durable";
  await call(star.client, "CreateBucket", { name: bucket });
  await call(star.client, "CreateStream", {
    bucket,
    key: "s",
    config: { producer_policy: "PRODUCER_POLICY_FENCED" },
  });
  await call(star.client, "Append", {
    bucket,
    key: "s",
    records: [{ body: Buffer.from("first") }],
  });
  await call(star.client, "Fence", { bucket, key: "s", fencing_token: "tok" });
  await call(star.client, "Trim", { bucket, key: "s", seq_num: "1" });

  const acked: Acked[] = [];
  const producer = async (client: DataPlaneServiceClient, p: number) => {
    for (let n = 0; !stop; n++) {
      const bodies = [0, 1, 2].map((i) => `${p}:${n}:${i}`);
      try {
        const ack = await call(client, "Append", {
          bucket,
          key: "s",
          fencing_token: "tok",
          records: bodies.map((b) => ({
            body: Buffer.from(b),
            headers: [{ name: Buffer.from("p"), value: Buffer.from(String(p)) }],
          })),
        });
        acked.push({
          start: Number(ack.start?.seq_num),
          timestamp: ack.start?.timestamp_ms ?? "",
          bodies,
        });
      } catch {
        return;
      }
    }
  };
  const producers = [0, 1, 2, 3].map((p) => producer(star.client, p));
  await waitFor(() => acked.length >= 60, { timeoutMs: 60_000, message: "60 acked batches" });
  await star.proc.kill("SIGKILL");
  stop = true;
  await Promise.all(producers);
  star.client.close();

  star = await startStar();
  try {
    const { tail } = await call(star.client, "CheckTail", { bucket, key: "s" });
    const records: { seq: number; ts: string; body: string; header: string }[] = [];
    for (let next = 0; ; ) {
      const page = await call(star.client, "Read", { bucket, key: "s", seq_num: String(next) });
      if (page.records.length === 0) break;
      for (const r of page.records) {
        records.push({
          seq: Number(r.seq_num),
          ts: r.timestamp_ms,
          body: r.body.toString(),
          header: r.headers.map((h) => `${h.name}=${h.value}`).join(),
        });
      }
      next = (records[records.length - 1]?.seq ?? 0) + 1;
    }
    assert.equal(records[0]?.seq, 1, "the trim point survived");
    assert.equal(Number(tail?.seq_num), (records[records.length - 1]?.seq ?? 0) + 1);
    const bySeq = new Map(records.map((r) => [r.seq, r]));
    for (const a of acked) {
      a.bodies.forEach((b, i) => {
        const r = bySeq.get(a.start + i);
        assert.equal(r?.body, b, `acked record ${a.start + i}`);
        assert.equal(r?.ts, a.timestamp);
        assert.equal(r?.header, `p=${b.split(":")[0]}`);
      });
    }
    // Every batch in the store is whole: its three records are adjacent and complete.
    for (const r of records) {
      const [p, n, i] = r.body.split(":");
      if (i !== "0") continue;
      for (let k = 1; k < 3; k++) assert.equal(bySeq.get(r.seq + k)?.body, `${p}:${n}:${k}`);
    }
    const got = await call(star.client, "GetStream", { bucket, key: "s" });
    assert.equal(got.fencing_token, "tok", "the fencing token survived");
    const ack = await call(star.client, "Append", {
      bucket,
      key: "s",
      fencing_token: "tok",
      records: [{ body: Buffer.from("after") }],
    });
    assert.equal(ack.start?.seq_num, tail?.seq_num, "appends continue at the recovered tail");
  } finally {
    star.client.close();
    await star.proc.kill("SIGTERM");
  }
});

test("a damaged log object with an acked record is refused after a restart, though later objects settled", async (t) => {
  // Quiet "a" keeps its record in the log (it does not settle meanwhile); busy "b" settles at
  // once, so every log object after a's is settled and may be deleted: a's is left the oldest
  // of the log, and replay must still count it acknowledged, not torn by a stop.
  const flags = ["--settle-chunk-kb", "1", "--settle-interval-ms", "10"];
  // A name of its own: the damage it leaves in its log stops no other test's star.
  const settling = [...flags, "--settle-max-age-ms", "600000", "--self", "damaged"];
  let star = await startStarProcess(["--s3-endpoint", s3.url, "--s3-bucket", "nova", ...settling]);
  const store = createS3Store({ endpoint: s3.url, bucket: "nova" });
  t.after(async () => {
    star.client.close();
    await star.proc.kill("SIGKILL");
    store.close();
  });
  const bucket = "damaged-log";
  await call(star.client, "CreateBucket", { name: bucket });
  for (const key of ["a", "b"]) await call(star.client, "CreateStream", { bucket, key });
  const logKeys = async () => (await store.list("log/")).objects.map((o) => o.key).sort();
  const before = new Set(await logKeys());
  await call(star.client, "Append", {
    bucket,
    key: "a",
    records: [{ body: Buffer.from("acked") }],
  });
  const holdingA = (await logKeys()).filter((k) => !before.has(k));
  assert.equal(holdingA.length, 1, "one log object holds a's record");
  const body = Buffer.alloc(2048, "b");
  for (let i = 0; i < 4; i++)
    await call(star.client, "Append", { bucket, key: "b", records: [{ body }] });
  // b's four objects settle and go, but for the newest, which a star keeps (its log's mark):
  // a's and at most that one are left.
  await waitFor(async () => (await logKeys()).filter((k) => !before.has(k)).length <= 2, {
    message: "b's settled log objects deleted",
  });
  await star.proc.kill("SIGKILL");
  star.client.close();

  const key = holdingA[0] as string;
  const bytes = Buffer.from((await store.get(key)) as Buffer);
  bytes[bytes.length - 9] = (bytes[bytes.length - 9] as number) ^ 0x40;
  await store.put(key, bytes);
  star = await startStarProcess(["--s3-endpoint", s3.url, "--s3-bucket", "nova", ...settling]);
  await assert.rejects(
    call(star.client, "Read", { bucket, key: "a", seq_num: "0" }),
    (err: ServiceError) =>
      err.code === status.UNAVAILABLE && err.details.includes(`log object ${key} is damaged`),
  );
});

test("a graceful shutdown ends subscriptions with UNAVAILABLE", async () => {
  const star = await startStar();
  try {
    await call(star.client, "CreateBucket", { name: "subs" });
    await call(star.client, "CreateStream", { bucket: "subs", key: "s" });
    const sub = star.client.Subscribe({ bucket: "subs", key: "s", seq_num: "0" });
    let caughtUp = false;
    sub.on("data", () => {
      caughtUp = true;
    });
    const ended = new Promise<ServiceError>((resolve) => sub.on("error", resolve));
    await waitFor(() => caughtUp, { timeoutMs: 10_000, message: "caught up" });
    await star.proc.kill("SIGTERM");
    assert.equal((await ended).code, status.UNAVAILABLE);
  } finally {
    star.client.close();
    await star.proc.kill("SIGKILL");
  }
});
