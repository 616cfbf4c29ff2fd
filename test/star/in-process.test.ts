// A gateway's fleet client calling its embedded star in process: the star's own handlers, with
// what the wire carries (bytes, metadata, status details), and no connection to the star. The
// client's only address has nothing listening, so any call that went over gRPC would fail.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { status } from "@grpc/grpc-js";
import { findDetail } from "../../src/contract/proto/index.ts";
import { FleetClient, StarCallError } from "../../src/gateway/upstream/index.ts";
import { call } from "../harness/grpc.ts";
import { freePort } from "../harness/ports.ts";
import { type StarFixture, startStarFixture, uniqueBucket } from "./fixture.ts";

let f: StarFixture;
let fleet: FleetClient;
before(async () => {
  f = await startStarFixture();
  const nowhere = `127.0.0.1:${await freePort()}`;
  fleet = new FleetClient({
    stars: [nowhere],
    inProcess: { address: nowhere, star: f.star.inProcess },
  });
});
after(async () => {
  fleet.close();
  await f.close();
});

test("unary verbs run in process, and what they store reads back over gRPC byte for byte", async () => {
  const bucket = uniqueBucket();
  await fleet.unary("CreateBucket", { name: bucket });
  await fleet.unary("CreateStream", { bucket, key: "s" });
  const records = [
    {
      body: Buffer.from([0, 0xff, 0xfe]),
      headers: [{ name: Buffer.from("h"), value: Buffer.from([0x80]) }],
    },
    { body: Buffer.from("two"), headers: [] },
  ];
  const ack = await fleet.unary("Append", { bucket, key: "s", records });
  assert.equal(ack.start?.seq_num, "0");
  assert.equal(ack.end?.seq_num, "2");
  const read = await call(f.client, "Read", { bucket, key: "s", seq_num: "0" });
  assert.deepEqual(
    read.records.map((r) => ({ body: r.body, headers: r.headers })),
    records,
  );
  const tail = await fleet.unary("CheckTail", { bucket, key: "s" });
  assert.deepEqual(tail.tail, ack.tail);
});

test("a refusal comes back with its code and typed details", async () => {
  const err = await fleet.unary("GetStream", { bucket: uniqueBucket(), key: "none" }).then(
    () => assert.fail("a stream in a bucket that does not exist"),
    (e: unknown) => e,
  );
  assert.ok(err instanceof StarCallError);
  assert.equal(err.code, status.NOT_FOUND);
  assert.equal(findDetail(err.metadata, "NotFoundDetail")?.resource, "RESOURCE_BUCKET");
});

test("once the star stops, an append is refused unseen: UNAVAILABLE, its outcome known", async () => {
  const own = await startStarFixture();
  const nowhere = `127.0.0.1:${await freePort()}`;
  const client = new FleetClient({
    stars: [nowhere],
    inProcess: { address: nowhere, star: own.star.inProcess },
  });
  try {
    const bucket = uniqueBucket();
    await client.unary("CreateBucket", { name: bucket });
    await client.unary("CreateStream", { bucket, key: "s" });
    await own.star.close();
    const err = await client
      .unary("Append", { bucket, key: "s", records: [{ body: Buffer.from("x"), headers: [] }] })
      .then(
        () => assert.fail("appended to a stopped star"),
        (e: unknown) => e,
      );
    assert.ok(err instanceof StarCallError);
    assert.equal(err.code, status.UNAVAILABLE);
    assert.equal(err.outcomeUnknown, false);
  } finally {
    client.close();
    await own.close();
  }
});
