import assert from "node:assert/strict";
import { test } from "node:test";
import { status } from "@grpc/grpc-js";
import { StarCallError } from "../upstream/index.ts";
import { toHttpError } from "./from-upstream.ts";

const broken = (method: string, outcomeUnknown: boolean) =>
  new StarCallError(
    {
      code: status.INTERNAL,
      details: "Received RST_STREAM with code 2 triggered by internal client error: Session closed",
    },
    { method, address: "127.0.0.1:1", outcomeUnknown },
  );

test("a connection torn down under a call is a retryable 503, an append's outcome unknown", () => {
  const append = toHttpError(broken("Append", true));
  assert.equal(append.status, 503);
  assert.equal(append.code, "unavailable");
  assert.equal(append.retryable, true);
  assert.deepEqual(append.fields, { outcome: "unknown" });
  assert.equal(append.headers?.["retry-after"], "1");
  assert.match(append.message, /the connection to the star broke during Append; retry/);
  const read = toHttpError(broken("Read", false));
  assert.equal(read.status, 503);
  assert.deepEqual(read.fields, {});
});

test("a star's own INTERNAL answer stays a 500", () => {
  const err = new StarCallError(
    { code: status.INTERNAL, details: "internal error: disk on fire" },
    { method: "Append", outcomeUnknown: true },
  );
  const http = toHttpError(err);
  assert.equal(http.status, 500);
  assert.equal(http.code, "internal");
});
