import assert from "node:assert/strict";
import { test } from "node:test";
import { Metadata, status } from "@grpc/grpc-js";
import { findDetail } from "../contract/proto/index.ts";
import { ObjectStoreError } from "../platform/objstore/index.ts";
import {
  ANSWERED_KEY,
  bucketNotFound,
  StarError,
  seqNumMismatch,
  streamNotFound,
  throughputExceeded,
  toServiceError,
  unavailable,
} from "./errors.ts";

test("an object store that is down or slow is UNAVAILABLE: the caller may retry", () => {
  for (const kind of ["unavailable", "timeout"] as const) {
    const err = toServiceError(new ObjectStoreError(kind, "k", "connect ECONNREFUSED"));
    assert.equal(err.code, status.UNAVAILABLE, kind);
    assert.match(err.details, /object storage is unavailable: connect ECONNREFUSED/);
  }
});

test("other store failures and bugs are INTERNAL; StarErrors pass through", () => {
  for (const err of [
    new ObjectStoreError("denied", "k", "AccessDenied"),
    new ObjectStoreError("other", "k", "bad key"),
    new TypeError("x is undefined"),
    "a string",
  ]) {
    assert.equal(toServiceError(err).code, status.INTERNAL);
  }
  const mine = seqNumMismatch(7n);
  assert.equal(toServiceError(mine), mine);
});

test("a relayed answer keeps the other star's code, message and typed details", () => {
  const original = seqNumMismatch(42n);
  const noise = new Metadata();
  noise.set("x-other", "dropped");
  for (const [k, v] of Object.entries(original.metadata.getMap())) noise.set(k, v as Buffer);
  const relayed = StarError.relayed({
    code: original.code,
    details: original.details,
    metadata: noise,
  });
  assert.equal(relayed.code, status.FAILED_PRECONDITION);
  assert.equal(relayed.details, original.details);
  assert.deepEqual(findDetail(relayed.metadata, "SeqNumMismatch"), { expected_seq_num: "42" });
  assert.deepEqual(relayed.metadata.get("x-other"), []);
});

test("a star's own errors say it answered; a transport failure it passes on does not", () => {
  assert.deepEqual(unavailable("storage is down").metadata.get(ANSWERED_KEY), ["1"]);
  const answered = StarError.relayed(unavailable("its storage is down"));
  assert.equal(answered.answered, true);
  const transport = StarError.relayed({
    code: status.UNAVAILABLE,
    details: "No connection established",
    metadata: new Metadata(),
  });
  assert.equal(transport.answered, false);
  assert.deepEqual(transport.metadata.get(ANSWERED_KEY), []);
});

test("NOT_FOUND names what is missing in a NotFoundDetail, not only in its message", () => {
  const bucket = bucketNotFound("b");
  assert.equal(bucket.code, status.NOT_FOUND);
  assert.deepEqual(findDetail(bucket.metadata, "NotFoundDetail"), {
    resource: "RESOURCE_BUCKET",
    bucket: "b",
    key: "",
  });
  const stream = streamNotFound("b", "orders/eu");
  assert.equal(stream.code, status.NOT_FOUND);
  assert.deepEqual(findDetail(stream.metadata, "NotFoundDetail"), {
    resource: "RESOURCE_STREAM",
    bucket: "b",
    key: "orders/eu",
  });
});

test("a batch over the throughput cap is RESOURCE_EXHAUSTED saying what to do, with a typed detail", () => {
  const err = throughputExceeded(2000, 1500, 2000);
  assert.equal(err.code, status.RESOURCE_EXHAUSTED);
  assert.equal(
    err.details,
    "the stream's throughput cap (2000 bytes/s) would hold this batch longer than 2000 ms, so nothing of it was appended; retry after 1500 ms, or raise throughput_max_bytes_per_second",
  );
  assert.deepEqual(findDetail(err.metadata, "ThroughputExceeded"), {
    limit_bytes_per_second: "2000",
    retry_after_ms: "1500",
  });
});
