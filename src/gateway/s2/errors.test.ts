import assert from "node:assert/strict";
import { test } from "node:test";
import {
  ERROR_CODES,
  HttpError,
  internal,
  invalidArgument,
  resourceExhausted,
  seqNumMismatch,
  unavailable,
} from "../errors/index.ts";
import { fencingTokenMismatch, S2_ERROR_STATUS, s2Error, toS2Error } from "./errors.ts";

test("S2's own errors keep their code with S2's status", () => {
  for (const [code, httpStatus] of Object.entries(S2_ERROR_STATUS)) {
    const reply = toS2Error(s2Error(code as keyof typeof S2_ERROR_STATUS, "why"));
    assert.deepEqual(reply, { status: httpStatus, headers: {}, body: { code, message: "why" } });
  }
});

test("the codes S2's SDK retries on come out with the statuses it reads", () => {
  const cases: [unknown, number, string][] = [
    [invalidArgument("records", "bad"), 422, "invalid"],
    [resourceExhausted("slow down", 2), 429, "rate_limited"],
    [new HttpError(409, "conflict", "again", { retryable: true }), 409, "transaction_conflict"],
    [unavailable("star down"), 503, "unavailable"],
    [unavailable("lost", { outcomeUnknown: true }), 500, "other"],
    [internal(new Error("x")), 500, "other"],
    [new HttpError(404, "bucket_not_found", "no"), 404, "basin_not_found"],
    [new HttpError(404, "stream_not_found", "no"), 404, "stream_not_found"],
    [new HttpError(409, "already_exists", "no"), 409, "resource_already_exists"],
    [new HttpError(504, "deadline_exceeded", "late"), 504, "upstream_timeout"],
    [new HttpError(418, "something_new", "?"), 500, "other"],
  ];
  for (const [err, httpStatus, code] of cases) {
    const reply = toS2Error(err);
    assert.equal(reply.status, httpStatus, code);
    assert.equal(reply.body.code, code);
  }
  assert.deepEqual(toS2Error(resourceExhausted("slow", 3)).headers, { "retry-after": "3" });
});

test("every nova code but internal has an S2 code of its own, never the retryable other", () => {
  for (const code of ERROR_CODES) {
    if (code === "internal") continue;
    const reply = toS2Error(new HttpError(400, code, "why"));
    assert.notEqual(reply.body.code, "other", code);
    assert.notEqual(reply.status, 500, code);
  }
  // A closed stream takes nothing more: not retryable, as nothing was appended.
  assert.deepEqual(toS2Error(new HttpError(409, "stream_closed", "closed at 1")), {
    status: 422,
    headers: {},
    body: { code: "invalid", message: "closed at 1" },
  });
});

test("append condition misses are 412 with S2's bodies", () => {
  assert.deepEqual(toS2Error(seqNumMismatch(42n)), {
    status: 412,
    headers: {},
    body: { seq_num_mismatch: 42n },
  });
  assert.deepEqual(toS2Error(fencingTokenMismatch("tok")), {
    status: 412,
    headers: {},
    body: { fencing_token_mismatch: "tok" },
  });
});

test("a read past the tail is 416 with the tail in S2's shape", () => {
  const err = new HttpError(416, "range_not_satisfiable", "past", {
    fields: { tail: { seq_num: 5n, timestamp_ms: 17n } },
  });
  assert.deepEqual(toS2Error(err), {
    status: 416,
    headers: {},
    body: { tail: { seq_num: 5n, timestamp: 17n } },
  });
});
