import assert from "node:assert/strict";
import { test } from "node:test";
import { status } from "@grpc/grpc-js";
import fc from "fast-check";
import {
  decodeStatusDetails,
  detailsMetadata,
  encodeStatusDetails,
  findDetail,
} from "./status-details.ts";

test("NotOwner round-trips through grpc-status-details-bin", () => {
  const md = detailsMetadata(status.FAILED_PRECONDITION, "not the leader", [
    { type: "NotOwner", value: { leader_id: "b", leader_address: "127.0.0.1:5001" } },
  ]);
  assert.deepEqual(findDetail(md, "NotOwner"), {
    leader_id: "b",
    leader_address: "127.0.0.1:5001",
  });
  assert.equal(findDetail(md, "SeqNumMismatch"), undefined);
});

test("uint64 details stay exact", () => {
  fc.assert(
    fc.property(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), (n) => {
      const bin = encodeStatusDetails(9, "m", [
        { type: "SeqNumMismatch", value: { expected_seq_num: n.toString() } },
      ]);
      assert.deepEqual(decodeStatusDetails(bin), [
        { type: "SeqNumMismatch", value: { expected_seq_num: n.toString() } },
      ]);
    }),
  );
});

test("tail detail and several details keep their order", () => {
  const bin = encodeStatusDetails(11, "beyond the tail", [
    { type: "TailDetail", value: { tail: { seq_num: "5", timestamp_ms: "-1" } } },
    { type: "FencingTokenMismatch", value: { token_installed: true } },
  ]);
  assert.deepEqual(decodeStatusDetails(bin), [
    { type: "TailDetail", value: { tail: { seq_num: "5", timestamp_ms: "-1" } } },
    { type: "FencingTokenMismatch", value: { token_installed: true } },
  ]);
});

test("metadata without details yields nothing", () => {
  assert.equal(findDetail(undefined, "NotOwner"), undefined);
});

test("details that do not decode are none, not a throw: the error keeps its status", () => {
  assert.deepEqual(decodeStatusDetails(Uint8Array.of(0x0a, 0xff, 0xff, 0xff)), []);
  const md = detailsMetadata(status.UNAVAILABLE, "m", []);
  md.set("grpc-status-details-bin", Buffer.from([0x08, 0x0e, 0x1a, 0x05, 0x0a]));
  assert.equal(findDetail(md, "NotOwner"), undefined);
});
