import assert from "node:assert/strict";
import { test } from "node:test";
import type { StopSignal } from "./messages.ts";
import { StopRequests, type StopSource } from "./stop-requests.ts";

function run(requests: [StopSignal, StopSource][]): StopSignal[] {
  const stops: StopSignal[] = [];
  const stopper = new StopRequests((signal) => stops.push(signal));
  for (const [signal, source] of requests) stopper.request(signal, source);
  return stops;
}

test("one SIGTERM from each way, in either order, is one stop", () => {
  assert.deepEqual(
    run([
      ["SIGTERM", "signal"],
      ["SIGTERM", "primary"],
    ]),
    ["SIGTERM"],
  );
  assert.deepEqual(
    run([
      ["SIGTERM", "primary"],
      ["SIGTERM", "signal"],
    ]),
    ["SIGTERM"],
  );
});

test("SIGTERM again from the same way hurries", () => {
  assert.deepEqual(
    run([
      ["SIGTERM", "signal"],
      ["SIGTERM", "signal"],
    ]),
    ["SIGTERM", "SIGTERM"],
  );
  assert.deepEqual(
    run([
      ["SIGTERM", "primary"],
      ["SIGTERM", "signal"],
      ["SIGTERM", "primary"],
    ]),
    ["SIGTERM", "SIGTERM"],
  );
});

test("SIGINT always goes through", () => {
  assert.deepEqual(
    run([
      ["SIGINT", "signal"],
      ["SIGINT", "primary"],
    ]),
    ["SIGINT", "SIGINT"],
  );
  assert.deepEqual(
    run([
      ["SIGTERM", "signal"],
      ["SIGINT", "primary"],
    ]),
    ["SIGTERM", "SIGINT"],
  );
});
