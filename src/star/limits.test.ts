import assert from "node:assert/strict";
import { test } from "node:test";
import { DEFAULT_LIMITS, EMBEDDED_LOG_COMMIT_INTERVAL_MS, logCommitIntervalMs } from "./limits.ts";

test("the log-commit interval: the one given, else 1 ms on the embedded store and 10 on S3", () => {
  assert.equal(logCommitIntervalMs("embedded"), EMBEDDED_LOG_COMMIT_INTERVAL_MS);
  assert.equal(logCommitIntervalMs("s3"), DEFAULT_LIMITS.logCommitIntervalMs);
  assert.equal(EMBEDDED_LOG_COMMIT_INTERVAL_MS, 1);
  assert.equal(DEFAULT_LIMITS.logCommitIntervalMs, 10);
  for (const store of ["embedded", "s3"] as const) {
    assert.equal(logCommitIntervalMs(store, 0), 0);
    assert.equal(logCommitIntervalMs(store, 25), 25);
  }
});
