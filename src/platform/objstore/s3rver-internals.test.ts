import assert from "node:assert/strict";
import { test } from "node:test";
import {
  checkS3rverVersion,
  installedS3rverVersion,
  PATCHED_S3RVER_VERSION,
} from "./s3rver-internals.ts";

test("the installed s3rver is the release the patches were written for", () => {
  assert.equal(installedS3rverVersion, PATCHED_S3RVER_VERSION);
  checkS3rverVersion(installedS3rverVersion);
});

test("another s3rver release is refused with what to do", () => {
  for (const other of ["3.7.2", "3.6.0", "4.0.0"]) {
    assert.throws(
      () => checkS3rverVersion(other),
      new RegExp(
        `patches the internals of s3rver 3\\.7\\.1, but s3rver ${other.replaceAll(".", "\\.")} is installed: pin s3rver`,
      ),
    );
  }
});
