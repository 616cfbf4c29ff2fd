import assert from "node:assert/strict";
import { test } from "node:test";
import { HttpError } from "../errors/index.ts";
import { toDsError } from "./errors.ts";

test("a closed stream is 409 with Stream-Closed and its final offset", () => {
  const e = toDsError(
    new HttpError(409, "stream_closed", "closed", {
      fields: { tail: { seq_num: 7n, timestamp_ms: 1n } },
    }),
  );
  assert.equal(e.status, 409);
  assert.deepEqual(e.headers, {
    "stream-closed": "true",
    "stream-next-offset": "0000000000000007_0000000000000000",
  });
});

test("a fenced producer is 403 with the current epoch", () => {
  const e = toDsError(
    new HttpError(403, "producer_fenced", "x", { fields: { current_epoch: 5n } }),
  );
  assert.equal(e.status, 403);
  assert.equal(e.headers?.["producer-epoch"], "5");
});

test("a gap is 409 with the seqs; a new epoch not at 0 is 400", () => {
  const gap = (expected: bigint, unknown: boolean) =>
    toDsError(
      new HttpError(409, "producer_seq_gap", "x", {
        fields: { expected_seq: expected, received_seq: 3n, unknown_producer: unknown },
      }),
    );
  assert.equal(gap(1n, false).status, 409);
  assert.equal(gap(1n, false).headers?.["producer-expected-seq"], "1");
  assert.equal(gap(1n, false).headers?.["producer-received-seq"], "3");
  assert.equal(gap(0n, true).status, 409, "a producer the stream does not know");
  assert.equal(gap(0n, false).status, 400, "a new epoch");
});

test("a start past the tail is a 400; the rest pass as they are", () => {
  assert.equal(toDsError(new HttpError(416, "range_not_satisfiable", "x")).status, 400);
  const other = new HttpError(404, "stream_not_found", "x");
  assert.equal(toDsError(other), other);
});
