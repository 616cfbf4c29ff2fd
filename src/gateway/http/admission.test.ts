import assert from "node:assert/strict";
import { test } from "node:test";
import { HttpError } from "../errors/index.ts";
import { AppendAdmission } from "./admission.ts";

test("admits within the budget and refuses past it with a retryable 429", () => {
  const a = new AppendAdmission(100);
  a.acquire(60);
  a.acquire(40);
  assert.throws(
    () => a.acquire(1),
    (e: unknown) => e instanceof HttpError && e.status === 429 && e.retryable,
  );
  a.release(60);
  a.acquire(50);
  assert.equal(a.inflight, 90);
});

test("always admits a first request, even one larger than the budget", () => {
  const a = new AppendAdmission(10);
  a.acquire(1000);
  assert.equal(a.inflight, 1000);
});
