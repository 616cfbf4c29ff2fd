// Idempotent producers in star processes over s3rver (docs/producers.md): a retry is recognised
// after the leader is SIGKILLed and restarted (its log replayed), after the stream settled, and
// after the fleet restarts with a new member that now leads the stream.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { status } from "@grpc/grpc-js";
import { findDetail } from "../../src/contract/proto/index.ts";
import { type RunningS3rver, startS3rver } from "../../src/platform/objstore/index.ts";
import { Fleet, type Member } from "../../src/star/fleet/members.ts";
import { fleetMembers, startMember } from "../harness/fleet.ts";
import { call, refusal, settleStar } from "../harness/grpc.ts";
import { type StarProcess, s3Storage } from "../harness/star-process.ts";

let dir: string;
let s3: RunningS3rver;
const running = new Set<StarProcess>();

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "nova-producers-star-"));
  s3 = await startS3rver({ port: 0, dataDir: dir, buckets: ["nova"] });
});
after(async () => {
  for (const star of running) await stop(star, "SIGTERM");
  await s3?.close();
  await rm(dir, { recursive: true, force: true });
});

async function start(members: Member[], name: string): Promise<StarProcess> {
  const star = await startMember(s3Storage(s3.url), members, name);
  running.add(star);
  return star;
}

async function stop(star: StarProcess, signal: NodeJS.Signals): Promise<void> {
  running.delete(star);
  star.client.close();
  await star.proc.kill(signal);
}

const producer = (seq: number) => ({ id: "writer-1", epoch: "5", seq: String(seq) });
const records = (body: string) => [{ body: Buffer.from(body) }];

test("a retry is a duplicate after kill -9 and replay, after settling, and after a leader move", async () => {
  const bucket = "prod";
  const two = await fleetMembers(["s1", "s2"]);
  const three = await fleetMembers(["s1", "s2", "s3"]);
  // A key s1 leads among two members, and s3 once it joins.
  let key = "";
  for (let i = 0; key === ""; i++) {
    const k = `k-${i}`;
    const a = new Fleet("s1", two).leaderOf(bucket, k).name;
    const b = new Fleet("s1", three).leaderOf(bucket, k).name;
    if (a === "s1" && b === "s3") key = k;
  }
  let s1 = await start(two, "s1");
  const s2 = await start(two, "s2");
  await call(s1.client, "CreateBucket", { name: bucket });
  await call(s1.client, "CreateStream", { bucket, key });
  const append = (star: StarProcess, seq: number, body: string) =>
    call(star.client, "Append", { bucket, key, records: records(body), producer: producer(seq) });

  // Settled: seq 0 goes into a chunk and the log object holding it is deleted.
  const first = await append(s1, 0, "a");
  await settleStar(s1.address);
  // Only in the log: seq 1, then SIGKILL.
  const second = await append(s1, 1, "b");
  await stop(s1, "SIGKILL");
  s1 = await start(two, "s1");
  for (const [seq, ack] of [
    [0, first],
    [1, second],
  ] as const) {
    const retry = await append(s1, seq, "zz");
    assert.equal(retry.duplicate, true, `seq ${seq} after the restart`);
    assert.deepEqual([retry.start, retry.end], [ack.start, ack.end]);
  }
  const gap = await refusal(append(s1, 5, "x"));
  assert.equal(gap.code, status.FAILED_PRECONDITION);
  assert.equal(findDetail(gap.metadata, "ProducerSeqGap")?.expected_seq, "2");
  const third = await append(s1, 2, "c");

  // The fleet restarts with s3, which now leads the stream; s1's log replays at its start.
  await stop(s1, "SIGKILL");
  await stop(s2, "SIGTERM");
  const stars = await Promise.all(["s1", "s2", "s3"].map((name) => start(three, name)));
  const s3star = stars[2] as StarProcess;
  // s1 settles what its log held (SettleStar waits for the replay) before the new leader opens
  // the stream: membership changes with every member stopped and each log replayed
  // (docs/fleet.md).
  await settleStar((stars[0] as StarProcess).address);
  const moved = await append(s3star, 2, "zz");
  assert.equal(moved.duplicate, true);
  assert.deepEqual([moved.start, moved.end], [third.start, third.end]);
  const fenced = await refusal(
    call(s3star.client, "Append", {
      bucket,
      key,
      records: records("x"),
      producer: { ...producer(0), epoch: "4" },
    }),
  );
  assert.equal(findDetail(fenced.metadata, "ProducerFenced")?.current_epoch, "5");
  const read = await call(s3star.client, "Read", { bucket, key, seq_num: "0" });
  assert.deepEqual(
    read.records.map((r) => Buffer.from(r.body).toString()),
    ["a", "b", "c"],
  );
});
