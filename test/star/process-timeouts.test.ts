// A star process's timeouts as flags, against a leader that never answers: a fake member "b"
// whose Read hangs, and a star process "a" in front of it (its lease long enough that it never
// takes b's streams over). --forward-deadline-ms bounds the call passed on to b;
// --shutdown-grace-ms is how long SIGTERM waits for such a call before cutting it.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import * as grpc from "@grpc/grpc-js";
import { nova } from "../../src/contract/proto/index.ts";
import type { DataPlaneServiceClient } from "../../src/gen/nova/v1/DataPlaneService.ts";
import type { ReadResponse } from "../../src/gen/nova/v1/ReadResponse.ts";
import {
  createS3Store,
  type RunningS3rver,
  startS3rver,
} from "../../src/platform/objstore/index.ts";
import { Fleet } from "../../src/star/fleet/members.ts";
import { newBucket, newStream } from "../../src/star/lifecycle/config.ts";
import { Catalog } from "../../src/star/storage/catalog.ts";
import { freePort } from "../harness/ports.ts";
import { type StarProcess, s3Storage, startStarProcess } from "../harness/star-process.ts";
import { tempDir } from "../harness/tmp.ts";
import { waitFor } from "../harness/wait.ts";

const cleanups: (() => Promise<unknown> | unknown)[] = [];
let s3: RunningS3rver;
let silentLeader: string;
const reads = { started: 0 };

before(async () => {
  const dir = await tempDir({ after: (fn) => void cleanups.push(fn) });
  s3 = await startS3rver({ port: 0, dataDir: dir, buckets: ["nova"] });
  cleanups.push(() => s3.close());
  const server = new grpc.Server();
  server.addService(nova.DataPlaneService.service, {
    Read: () => {
      reads.started++;
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  cleanups.push(() => server.forceShutdown());
  silentLeader = `127.0.0.1:${port}`;
});

after(async () => {
  for (const fn of cleanups.reverse()) await fn();
});

/** Star "a" in a fleet with the silent "b", and a stream that b leads, named in storage. */
async function starBeforeSilentLeader(
  name: string,
  flags: string[],
): Promise<{ star: StarProcess; bucket: string; key: string }> {
  const members = [
    { name: "a", address: `127.0.0.1:${await freePort()}` },
    { name: "b", address: silentLeader },
  ];
  const store = createS3Store({ endpoint: s3.url, bucket: "nova" });
  const bucket = newBucket(name, null, "", Date.now());
  const catalog = new Catalog(store);
  await catalog.putBucket(bucket);
  const fleet = new Fleet("a", members);
  let key = "k0";
  for (let i = 1; fleet.leads(bucket.name, key); i++) key = `k${i}`;
  await catalog.putStream(newStream(bucket, key, null, "", `${name}-stream`, Date.now()));
  store.close();
  const star = await startStarProcess(s3Storage(s3.url), {
    listen: members[0]?.address,
    args: [
      "--self",
      "a",
      "--fleet",
      members.map((m) => `${m.name}=${m.address}`).join(","),
      "--lease-ms",
      "600000",
      ...flags,
    ],
  });
  cleanups.push(
    () => star.proc.kill("SIGKILL"),
    () => star.client.close(),
  );
  return { star, bucket: bucket.name, key };
}

/** A Read of b's stream from its start, which "a" passes on to b; resolves either way. */
function read(
  client: DataPlaneServiceClient,
  bucket: string,
  key: string,
  deadlineMs: number,
): Promise<{ err: grpc.ServiceError | null; res?: ReadResponse }> {
  return new Promise((resolve) =>
    client.Read(
      { bucket, key, seq_num: "0" },
      { deadline: Date.now() + deadlineMs },
      (err: grpc.ServiceError | null, res?: ReadResponse) => resolve({ err, res }),
    ),
  );
}

test("--forward-deadline-ms: a leader silent that long is read around, from storage", async () => {
  const { star, bucket, key } = await starBeforeSilentLeader("fwd-deadline", [
    "--forward-deadline-ms",
    "300",
  ]);
  // Within the caller's deadline only because the star's flag, not the default 30 s, ended
  // the wait for b (docs/fleet.md: a leader that does not answer is read around).
  const { err, res } = await read(star.client, bucket, key, 15_000);
  assert.equal(err, null, err?.message);
  assert.equal(reads.started > 0, true);
  assert.deepEqual([res?.records?.length, res?.tail?.seq_num], [0, "0"]);
});

/** A star with `grace` whose Read waits on b, passed on and held there (no forward deadline). */
async function readHeldOnB(name: string, grace: string) {
  const { star, bucket, key } = await starBeforeSilentLeader(name, [
    "--shutdown-grace-ms",
    grace,
    "--forward-deadline-ms",
    "600000",
  ]);
  const before = reads.started;
  const pending = read(star.client, bucket, key, 600_000);
  await waitFor(() => reads.started > before, { message: "the Read passed on to b" });
  return { star, pending };
}

test("--shutdown-grace-ms: SIGTERM waits that long for a call still running", async () => {
  const { star, pending } = await readHeldOnB("shutdown-grace", "600000");
  // Longer than the grace would have been without the flag (5 s): the star still waits.
  const ended = await star.proc.kill("SIGTERM", 8000);
  assert.equal(ended.signal, "SIGKILL", "the star exited with a call in its grace");
  // SIGKILL, so nothing answered it: the connection just closed.
  assert.equal((await pending).err?.code, grpc.status.UNAVAILABLE);
});

test("--shutdown-grace-ms 0: SIGTERM cuts a call still running and the star exits 0", async () => {
  const { star, pending } = await readHeldOnB("shutdown-cut", "0");
  assert.deepEqual(await star.proc.kill("SIGTERM", 60_000), { code: 0, signal: null });
  // Answered, retryable, before the connection was cut (not reset without a status).
  const { err } = await pending;
  assert.equal(err?.code, grpc.status.UNAVAILABLE, err?.message);
  assert.match(err.details, /shutting down/);
});
