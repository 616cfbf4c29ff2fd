import assert from "node:assert/strict";
import { test } from "node:test";
import { status } from "@grpc/grpc-js";
import { findDetail } from "../../contract/proto/index.ts";
import type { StarError } from "../errors.ts";
import { DEFAULT_LIMITS } from "../limits.ts";
import { batchTimestamp, validateBatch } from "./validate-batch.ts";

const records = (...sizes: number[]) =>
  sizes.map((n) => ({ body: Buffer.alloc(n, 0x61), headers: [] }));
const limits = { ...DEFAULT_LIMITS, maxRecordBytes: 60, maxBatchBytes: 100 };
const refusal = (fn: () => unknown): StarError => {
  try {
    fn();
  } catch (err) {
    return err as StarError;
  }
  assert.fail("expected a refusal");
};

test("a batch over the per-batch cap is INVALID_ARGUMENT with a BatchTooLarge detail", () => {
  const err = refusal(() =>
    validateBatch(records(50, 50, 1), "TIMESTAMPING_MODE_CLIENT_PREFER", limits),
  );
  assert.equal(err.code, status.INVALID_ARGUMENT);
  assert.match(err.details, /batch of 101 content bytes is over the per-batch cap of 100/);
  assert.deepEqual(findDetail(err.metadata, "BatchTooLarge"), {
    content_bytes: "101",
    limit: "100",
  });
  // At the cap exactly, the batch passes.
  assert.equal(
    validateBatch(records(50, 50), "TIMESTAMPING_MODE_CLIENT_PREFER", limits).contentBytes,
    100,
  );
});

test("a record over the per-record cap is INVALID_ARGUMENT without the batch detail", () => {
  const err = refusal(() => validateBatch(records(61), "TIMESTAMPING_MODE_CLIENT_PREFER", limits));
  assert.equal(err.code, status.INVALID_ARGUMENT);
  assert.match(err.details, /record 0: 61 content bytes, over the per-record cap of 60/);
  assert.equal(findDetail(err.metadata, "BatchTooLarge"), undefined);
});

test("a batch's time: int64 throughout, capped at arrival unless uncapped, never below the last", () => {
  // A first record keeps a negative stamp: there is no earlier time to clamp it to.
  assert.equal(batchTimestamp(-5n, 100n, false, undefined), -5n);
  assert.equal(batchTimestamp(-(2n ** 63n), 100n, false, undefined), -(2n ** 63n));
  // Later ones never go below the previous record's time, negative or not.
  assert.equal(batchTimestamp(-10n, 100n, false, -5n), -5n);
  assert.equal(batchTimestamp(-1n, 100n, false, -5n), -1n);
  assert.equal(batchTimestamp(50n, 100n, false, 60n), 60n);
  // A stamp in the future is capped at arrival, unless the stream is uncapped.
  assert.equal(batchTimestamp(500n, 100n, false, undefined), 100n);
  assert.equal(batchTimestamp(500n, 100n, true, undefined), 500n);
  // No stamp: arrival time.
  assert.equal(batchTimestamp(undefined, 100n, false, 7n), 100n);
});

test("a negative client stamp is a valid record time", () => {
  const batch = validateBatch(
    [{ body: Buffer.from("x"), headers: [], timestamp_ms: "-9223372036854775808" }],
    "TIMESTAMPING_MODE_CLIENT_PREFER",
    DEFAULT_LIMITS,
  );
  assert.equal(batch.maxClientTimestamp, -(2n ** 63n));
});
