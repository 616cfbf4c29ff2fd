import assert from "node:assert/strict";
import { test } from "node:test";
import { status } from "@grpc/grpc-js";
import { producerClaim } from "./producer-claim.ts";

test("a producer stamp keeps uint64 values exact", () => {
  assert.deepEqual(
    producerClaim({ id: "p", epoch: "18446744073709551615", seq: "9007199254740993" }),
    {
      id: "p",
      epoch: 2n ** 64n - 1n,
      seq: 2n ** 53n + 1n,
    },
  );
  assert.equal(producerClaim(null), undefined);
});

test("a producer id of 0 or over 128 characters is INVALID_ARGUMENT; 128 emoji pass", () => {
  for (const id of ["", "x".repeat(129)]) {
    assert.throws(
      () => producerClaim({ id, epoch: "0", seq: "0" }),
      (err: { code: number; message: string }) => {
        assert.equal(err.code, status.INVALID_ARGUMENT);
        assert.match(err.message, /1 to 128/);
        return true;
      },
    );
  }
  assert.equal(producerClaim({ id: "😀".repeat(128), epoch: "0", seq: "0" })?.id.length, 256);
});
