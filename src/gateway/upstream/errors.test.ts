import assert from "node:assert/strict";
import { test } from "node:test";
import { Metadata, status } from "@grpc/grpc-js";
import { detailsMetadata } from "../../contract/proto/index.ts";
import {
  abortError,
  connectionBroken,
  hopStatus,
  isServiceError,
  notOwnerLeader,
  StarCallError,
  statusName,
} from "./errors.ts";

test("notOwnerLeader reads the NotOwner detail of a FAILED_PRECONDITION only", () => {
  const metadata = detailsMetadata(status.FAILED_PRECONDITION, "not leader", [
    { type: "NotOwner", value: { leader_id: "b", leader_address: "127.0.0.1:5001" } },
  ]);
  assert.equal(notOwnerLeader({ code: status.FAILED_PRECONDITION, metadata }), "127.0.0.1:5001");
  assert.equal(notOwnerLeader({ code: status.UNAVAILABLE, metadata }), undefined);
  assert.equal(
    notOwnerLeader({ code: status.FAILED_PRECONDITION, metadata: new Metadata() }),
    undefined,
  );
});

test("StarCallError is a ServiceError that names the call, the star and the status", () => {
  const err = new StarCallError(
    { code: status.NOT_FOUND, details: "stream does not exist" },
    { method: "Read", address: "127.0.0.1:5001" },
  );
  assert.ok(isServiceError(err));
  assert.equal(err.outcomeUnknown, false);
  assert.match(err.message, /Read on star 127\.0\.0\.1:5001 failed with NOT_FOUND: stream/);
  const aborted = abortError("Append", undefined, new Error("client left"), true);
  assert.equal(aborted.name, "AbortError");
  assert.equal(aborted.code, status.CANCELLED);
  assert.equal(aborted.outcomeUnknown, true);
  assert.ok(!isServiceError(new Error("plain")));
  assert.equal(statusName(status.DEADLINE_EXCEEDED), "DEADLINE_EXCEEDED");
});

test("a stream reset without a status is the star's connection, not its answer", () => {
  for (const code of [0, 2]) {
    const failed = {
      code: status.INTERNAL,
      details: `Received RST_STREAM with code ${code} (Call ended without gRPC status)`,
    };
    assert.equal(connectionBroken(failed), true);
    assert.equal(hopStatus(failed, false).code, status.UNAVAILABLE);
  }
  for (const details of ["Received RST_STREAM with code 1", "the star failed"]) {
    assert.equal(connectionBroken({ code: status.INTERNAL, details }), false);
    assert.equal(hopStatus({ code: status.INTERNAL, details }, false).code, status.INTERNAL);
  }
});
