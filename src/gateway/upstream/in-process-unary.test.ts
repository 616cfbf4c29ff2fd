import assert from "node:assert/strict";
import { test } from "node:test";
import * as grpc from "@grpc/grpc-js";
import type { MethodDefinition } from "@grpc/proto-loader";
import { type InProcessEnd, type InProcessStar, nova } from "../../contract/proto/index.ts";
import type { UnaryEnd } from "./h2-unary.ts";
import { startInProcess } from "./in-process-unary.ts";

const CHECK_TAIL = nova.DataPlaneService.service.CheckTail as MethodDefinition<
  { bucket: string; key: string },
  unknown,
  unknown,
  unknown
>;

/** A star that answers every call with `end`, and keeps what it was asked. */
function starAnswering(end: InProcessEnd) {
  const asked: { path: string; request: Buffer; deadline: number }[] = [];
  const star: InProcessStar = {
    serves: () => true,
    unary(path, request, _metadata, deadline, done) {
      asked.push({ path, request, deadline });
      queueMicrotask(() => done(end));
      return { cancel() {} };
    },
  };
  return { star, asked };
}

function call(star: InProcessStar) {
  let resolve: (end: UnaryEnd<unknown>) => void = () => {};
  const ended = new Promise<UnaryEnd<unknown>>((r) => {
    resolve = r;
  });
  startInProcess(star, CHECK_TAIL, { bucket: "b", key: "k" }, new grpc.Metadata(), 1234, resolve);
  return { ended };
}

test("the request goes as its protobuf bytes, and the answer comes back decoded", async () => {
  const tail = { tail: { seq_num: "18446744073709551615", timestamp_ms: "1" }, closed: true };
  const { star, asked } = starAnswering({
    code: grpc.status.OK,
    details: "OK",
    metadata: new grpc.Metadata(),
    response: CHECK_TAIL.responseSerialize(tail),
    sent: true,
  });
  const end = await call(star).ended;
  assert.deepEqual(asked, [
    {
      path: CHECK_TAIL.path,
      request: CHECK_TAIL.requestSerialize({ bucket: "b", key: "k" }),
      deadline: 1234,
    },
  ]);
  assert.equal(end.status.code, grpc.status.OK);
  assert.deepEqual(end.response, tail);
});

test("a refusal keeps its status, trailers and whether it was sent", async () => {
  const metadata = new grpc.Metadata();
  metadata.set("grpc-status-details-bin", Buffer.from([1, 2, 3]));
  for (const sent of [true, false]) {
    const { star } = starAnswering({
      code: grpc.status.UNAVAILABLE,
      details: "gone",
      metadata,
      sent,
    });
    const end = await call(star).ended;
    assert.deepEqual(
      { code: end.status.code, details: end.status.details, sent: end.sent },
      { code: grpc.status.UNAVAILABLE, details: "gone", sent },
    );
    assert.equal(end.status.metadata, metadata);
    assert.equal(end.response, undefined);
  }
});

test("an OK without an answer ends INTERNAL, sent", async () => {
  const { star } = starAnswering({
    code: grpc.status.OK,
    details: "OK",
    metadata: new grpc.Metadata(),
    sent: true,
  });
  const end = await call(star).ended;
  assert.deepEqual(
    [end.status.code, end.status.details, end.sent],
    [grpc.status.INTERNAL, "the star answered OK without a message", true],
  );
});

test("an answer that does not decode ends INTERNAL, sent", async () => {
  const { star } = starAnswering({
    code: grpc.status.OK,
    details: "OK",
    metadata: new grpc.Metadata(),
    response: Buffer.from([0xff, 0xff]),
    sent: true,
  });
  const end = await call(star).ended;
  assert.equal(end.status.code, grpc.status.INTERNAL);
  assert.match(end.status.details, /does not decode/);
  assert.equal(end.sent, true);
});

test("a request that does not encode ends INTERNAL, never sent, and reaches no star", async () => {
  const { star, asked } = starAnswering({
    code: grpc.status.OK,
    details: "OK",
    metadata: new grpc.Metadata(),
    sent: true,
  });
  const append = nova.DataPlaneService.service.Append as MethodDefinition<
    unknown,
    unknown,
    unknown,
    unknown
  >;
  const end = await new Promise<UnaryEnd<unknown>>((resolve) => {
    const request = {
      bucket: "b",
      key: "k",
      records: [{ body: Buffer.from("x"), timestamp_ms: "1-2" }],
    };
    startInProcess(star, append, request, new grpc.Metadata(), 1234, resolve);
  });
  assert.equal(end.status.code, grpc.status.INTERNAL);
  assert.match(end.status.details, /does not encode/);
  assert.equal(end.sent, false);
  assert.deepEqual(asked, []);
});
