// Work one member passes to another, on real sockets: two stars in this process with auth on over
// a real s3rver, and a member that never answers. A read that creates a stream on a member that
// does not lead it needs only read; DeleteBucket through any member needs only admin; a caller
// that cancels cancels the call passed on for it.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import * as grpc from "@grpc/grpc-js";
import type { RequestOf, ResponseOf, UnaryMethod } from "../../src/contract/proto/index.ts";
import { nova } from "../../src/contract/proto/index.ts";
import type { DataPlaneServiceClient } from "../../src/gen/nova/v1/DataPlaneService.ts";
import {
  createS3Store,
  type RunningS3rver,
  startS3rver,
} from "../../src/platform/objstore/index.ts";
import { parseScope } from "../../src/star/auth/scope.ts";
import { Fleet, type Member } from "../../src/star/fleet/members.ts";
import { newBucket, newStream } from "../../src/star/lifecycle/config.ts";
import { type RunningStar, startStar } from "../../src/star/star.ts";
import { Catalog } from "../../src/star/storage/catalog.ts";
import { call, dataPlaneClient } from "../harness/grpc.ts";
import { freePort } from "../harness/ports.ts";
import { tempDir } from "../harness/tmp.ts";
import { waitFor } from "../harness/wait.ts";

const SIGNING_KEY = "fleet forwarding test signing key, 32+ bytes";
const API_KEYS = [
  { id: "ops", secret: "ops-secret", scope: "nova:*:*" },
  { id: "reader", secret: "reader-secret", scope: "nova:read:*" },
  { id: "admin", secret: "admin-secret", scope: "nova:admin:*" },
];

let s3: RunningS3rver;
const cleanups: (() => Promise<void> | void)[] = [];

before(async () => {
  const dir = await tempDir({ after: (fn) => void cleanups.push(fn) });
  s3 = await startS3rver({ port: 0, dataDir: dir, buckets: ["nova"] });
  cleanups.push(() => s3.close());
});

// Stars, then s3rver, then its directory: the reverse of starting them.
after(async () => {
  for (const fn of cleanups.reverse()) await fn();
});

function bearer(token: string | undefined): grpc.Metadata {
  const md = new grpc.Metadata();
  if (token !== undefined) md.set("authorization", `Bearer ${token}`);
  return md;
}

const callAs = <M extends UnaryMethod>(
  client: DataPlaneServiceClient,
  token: string | undefined,
  method: M,
  request: RequestOf<M>,
): Promise<ResponseOf<M>> => call(client, method, request, bearer(token));

/** Two stars "a" and "b" in one fleet, with auth on; stopped after the tests. */
async function startPair(): Promise<{
  fleet: Fleet;
  clients: Map<string, DataPlaneServiceClient>;
}> {
  const members: Member[] = [];
  for (const name of ["a", "b"]) members.push({ name, address: `127.0.0.1:${await freePort()}` });
  const clients = new Map<string, DataPlaneServiceClient>();
  for (const m of members) {
    const store = createS3Store({ endpoint: s3.url, bucket: "nova" });
    const star: RunningStar = await startStar({
      id: m.name,
      listen: m.address,
      store,
      fleet: members,
      auth: {
        signingKey: SIGNING_KEY,
        apiKeys: API_KEYS.map((k) => ({ ...k, scope: parseScope(k.scope) })),
      },
    });
    const client = dataPlaneClient(star.address);
    clients.set(m.name, client);
    cleanups.push(async () => {
      client.close();
      await star.close();
      store.close();
    });
  }
  return { fleet: new Fleet("a", members), clients };
}

describe("a fleet with auth", () => {
  let fleet: Fleet;
  let clients: Map<string, DataPlaneServiceClient>;
  const tokens = new Map<string, string>();
  const client = (name: string) => clients.get(name) as DataPlaneServiceClient;

  before(async () => {
    ({ fleet, clients } = await startPair());
    for (const k of API_KEYS) {
      const res = await callAs(client("a"), undefined, "ExchangeToken", {
        key_id: k.id,
        secret: k.secret,
        scope: k.scope,
      });
      tokens.set(k.id, res.token);
    }
  });

  /** A stream key in `bucket` that the member `leader` leads. */
  const keyLedBy = (bucket: string, leader: string) => {
    for (let i = 0; ; i++) if (fleet.leaderOf(bucket, `k${i}`).name === leader) return `k${i}`;
  };

  test("a read-only token creates a stream on read through a member that does not lead it", async () => {
    const bucket = "fwd-on-read";
    await callAs(client("a"), tokens.get("ops"), "CreateBucket", {
      name: bucket,
      config: { create_stream_on_read: true },
    });
    for (const [via, leader] of [
      ["a", "b"],
      ["b", "a"],
    ] as const) {
      const key = keyLedBy(bucket, leader);
      const page = await callAs(client(via), tokens.get("reader"), "Read", {
        bucket,
        key,
        seq_num: "0",
      });
      assert.deepEqual(page.records, [], `read of ${key} through ${via}`);
      const got = await callAs(client(leader), tokens.get("reader"), "GetStream", { bucket, key });
      assert.equal(got.stream?.key, key);
    }
  });

  test("an admin-only token deletes a bucket whose streams other members lead", async () => {
    const ops = tokens.get("ops");
    for (const via of ["a", "b"]) {
      // The bucket's leader deletes it, whichever member the call came through.
      const name = `fwd-delete-${via}`;
      await callAs(client("a"), ops, "CreateBucket", { name });
      for (const key of [keyLedBy(name, "a"), keyLedBy(name, "b")]) {
        await callAs(client("a"), ops, "CreateStream", { bucket: name, key });
      }
      await callAs(client(via), tokens.get("admin"), "DeleteBucket", { name });
      await assert.rejects(
        callAs(client(via), ops, "GetBucket", { name }),
        (err: grpc.ServiceError) => err.code === grpc.status.NOT_FOUND,
      );
    }
  });

  test("an admin-only token still cannot delete a stream itself", async () => {
    const bucket = "fwd-admin";
    const ops = tokens.get("ops");
    await callAs(client("a"), ops, "CreateBucket", { name: bucket });
    const key = keyLedBy(bucket, "b");
    await callAs(client("a"), ops, "CreateStream", { bucket, key });
    await assert.rejects(
      callAs(client("b"), tokens.get("admin"), "DeleteStream", { bucket, key }),
      (err: grpc.ServiceError) => err.code === grpc.status.PERMISSION_DENIED,
    );
  });
});

describe("a leader that does not answer", () => {
  test("a Read cancelled by its caller cancels the Read passed on to the leader", async () => {
    // "b" is a DataPlaneService whose Read never answers; it notes when a Read arrives and ends.
    const seen = { started: 0, cancelled: 0 };
    const server = new grpc.Server();
    server.addService(nova.DataPlaneService.service, {
      Read: (call: grpc.ServerUnaryCall<unknown, unknown>) => {
        seen.started++;
        call.on("cancelled", () => seen.cancelled++);
      },
    });
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) =>
        err ? reject(err) : resolve(p),
      ),
    );
    cleanups.push(() => void server.forceShutdown());
    const members = [
      { name: "a", address: `127.0.0.1:${await freePort()}` },
      { name: "b", address: `127.0.0.1:${port}` },
    ];
    const fleet = new Fleet("a", members);
    const store = createS3Store({ endpoint: s3.url, bucket: "nova" });
    // The descriptors "b" would have written.
    const catalog = new Catalog(store);
    const bucket = newBucket("fwd-hang", null, "", Date.now());
    await catalog.putBucket(bucket);
    let key = "k0";
    for (let i = 1; fleet.leads(bucket.name, key); i++) key = `k${i}`;
    await catalog.putStream(newStream(bucket, key, null, "", "fwd-hang-stream", Date.now()));

    const star = await startStar({
      id: "a",
      listen: members[0]?.address as string,
      store,
      fleet: members,
    });
    const client = dataPlaneClient(star.address);
    cleanups.push(async () => {
      client.close();
      await star.close();
      store.close();
    });

    const read = client.Read({ bucket: bucket.name, key, seq_num: "0" }, () => undefined);
    await waitFor(() => seen.started === 1, { message: "the Read passed on to the leader" });
    read.cancel();
    await waitFor(() => seen.cancelled === 1, { message: "the passed-on Read to be cancelled" });
  });
});
