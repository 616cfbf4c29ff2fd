import assert from "node:assert/strict";
import { test } from "node:test";
import { status } from "@grpc/grpc-js";
import { findDetail } from "../../contract/proto/index.ts";
import type { StarError } from "../errors.ts";
import { DEFAULT_LIMITS } from "../limits.ts";
import { validateBatch } from "./validate-batch.ts";

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
