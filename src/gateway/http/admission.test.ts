import assert from "node:assert/strict";
import { test } from "node:test";
import { HttpError } from "../errors/index.ts";
import {
  APPEND_MEMORY_FACTOR,
  AppendAdmission,
  chargeParse,
  JSON_VALUE_BYTES,
} from "./admission.ts";

const refused = (e: unknown) => e instanceof HttpError && e.status === 429 && e.retryable;

test("admits within the budget and refuses past it with a retryable 429", () => {
  const a = new AppendAdmission(100);
  a.body("x", 60).take(60);
  const y = a.body("y", 40);
  y.take(40);
  assert.throws(() => a.body("z", 1).take(1), refused);
  y.release();
  a.body("z", 30).take(30);
  assert.equal(a.inflight, 90);
});

test("always admits a first request, even one larger than the budget", () => {
  const a = new AppendAdmission(10);
  a.body("x", 1000).take(1000);
  assert.equal(a.inflight, 1000);
});

test("a session's lines are taken as they come and given back once answered; its client's bound counts them", () => {
  const a = new AppendAdmission({ maxBytes: 1000, clientMaxBytes: 100 });
  const session = a.session("x");
  session.take(60);
  session.take(40);
  // The same client's other session is past the client's bound; another client is not.
  const other = a.session("x");
  assert.throws(() => other.take(10), refused);
  a.body("y", 10).take(10);
  session.give(60);
  other.take(10);
  assert.equal(a.inflight, 60);
  session.release();
  other.release();
  session.give(40);
  assert.equal(a.inflight, 10, "a give after the release changes nothing");
});

test("a session's lines are small appends: they find room in the reserve beside large bodies", () => {
  const a = new AppendAdmission({ maxBytes: 800, clientMaxBytes: 800 });
  a.body("x", undefined).take(700);
  const session = a.session("y");
  session.take(90);
  assert.equal(a.inflight, 790);
});

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

test("a parse is charged past what its body's size counts, in the body's units", () => {
  const a = new AppendAdmission({ maxBytes: 1 << 30, clientMaxBytes: 1 << 30 });
  const ticket = a.body("x", 1000);
  ticket.take(1000);
  const charge = chargeParse(ticket, 1000);
  // 1000 bytes count for 4000 of memory: 80 values (3,840 bytes) add nothing.
  charge(80);
  assert.equal(a.inflight, 1000);
  // 1,000 values hold 48,000: 44,000 more, 11,000 in the body's units; then only what grows.
  charge(1000);
  assert.equal(a.inflight, 1000 + (1000 * JSON_VALUE_BYTES - 4000) / APPEND_MEMORY_FACTOR);
  charge(2000);
  assert.equal(a.inflight, 1000 + (2000 * JSON_VALUE_BYTES - 4000) / APPEND_MEMORY_FACTOR);
  ticket.release();
  assert.equal(a.inflight, 0);
});
