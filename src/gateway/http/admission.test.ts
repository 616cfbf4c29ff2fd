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

const refused = (e: unknown) => e instanceof HttpError && e.status === 429 && e.retryable;

test("a body holds what has arrived, not what it declared", () => {
  const a = new AppendAdmission({ maxBytes: 100, clientMaxBytes: 100 });
  const stalled = a.body("x", 64 * 1024 * 1024);
  stalled.take(1);
  const small = a.body("y", 50);
  small.take(50);
  assert.equal(a.inflight, 51);
  stalled.release();
  small.release();
  assert.equal(a.inflight, 0);
  assert.equal(a.clients, 0);
});

test("large bodies leave the budget's last eighth to small ones", () => {
  const a = new AppendAdmission({ maxBytes: 800, clientMaxBytes: 800 });
  const big = a.body("x", 2 * 1024 * 1024);
  const other = a.body("z", undefined);
  big.take(600);
  assert.throws(() => other.take(101), refused, "past 700 for bodies that are not small");
  other.take(100);
  const small = a.body("y", 90);
  small.take(90);
  assert.equal(a.inflight, 790);
  assert.throws(() => a.body("w", 20).take(20), refused, "the budget itself still holds");
});

test("one client holds at most its share; alone it is always admitted", () => {
  const a = new AppendAdmission({ maxBytes: 1000, clientMaxBytes: 100 });
  const first = a.body("Bearer a", 500);
  first.take(300);
  const second = a.body("Bearer a", 500);
  assert.throws(
    () => second.take(1),
    (e: unknown) => refused(e) && /this client/.test(String(e)),
  );
  a.body("Bearer b", 50).take(50);
  first.release();
  second.take(100);
  assert.throws(() => a.body("Bearer a", 10).take(1), refused);
  assert.equal(a.inflight, 150);
});

test("a body alone in the gateway may exceed the budget; release is idempotent and ends the taking", () => {
  const a = new AppendAdmission({ maxBytes: 10, clientMaxBytes: 10 });
  const t = a.body("x", 1000);
  t.take(1000);
  t.release();
  t.release();
  t.take(5);
  assert.equal(a.inflight, 0);
});
