import assert from "node:assert/strict";
import { test } from "node:test";
import { BULK_APPEND_BYTES, laneOf } from "./call-lane.ts";

const record = (body: number, header = 0) => ({
  body: Buffer.alloc(body),
  headers: header > 0 ? [{ name: Buffer.from("h"), value: Buffer.alloc(header - 1) }] : [],
});

test("an Append of BULK_APPEND_BYTES or more record bytes takes the bulk lane; the rest the calls lane", () => {
  const append = (...records: ReturnType<typeof record>[]) =>
    laneOf("Append", { bucket: "b", key: "k", records });
  assert.equal(append(record(BULK_APPEND_BYTES - 1)), "calls");
  assert.equal(append(record(BULK_APPEND_BYTES)), "bulk");
  assert.equal(append(record(BULK_APPEND_BYTES / 2), record(BULK_APPEND_BYTES / 2)), "bulk");
  // Header names and values count too.
  assert.equal(append(record(BULK_APPEND_BYTES - 10, 10)), "bulk");
  assert.equal(append(), "calls");
  assert.equal(laneOf("Read", { bucket: "b", key: "k" }), "calls");
  assert.equal(
    laneOf("Fence", { bucket: "b", key: "k", fencing_token: "x".repeat(1 << 20) }),
    "calls",
  );
});
