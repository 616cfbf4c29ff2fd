import assert from "node:assert/strict";
import { test } from "node:test";
import { ConnectionSession, LiveSessions } from "./live-sessions.ts";

function fake(endsOnDrain: boolean) {
  let end: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    end = resolve;
  });
  const s = {
    drained: 0,
    destroyed: 0,
    drain() {
      s.drained++;
      if (endsOnDrain) end();
    },
    destroy() {
      s.destroyed++;
      end();
    },
  };
  return { s, done, end: () => end() };
}

test("drainAll drains every session and waits for them to end", async () => {
  const live = new LiveSessions();
  const a = fake(true);
  const b = fake(true);
  live.track(a.s, a.done);
  live.track(b.s, b.done);
  assert.equal(live.size, 2);
  await live.drainAll(60_000);
  assert.deepEqual([a.s.drained, b.s.drained, a.s.destroyed, b.s.destroyed], [1, 1, 0, 0]);
  assert.equal(live.size, 0);
});

test("a session still running after the grace period is destroyed", async () => {
  const live = new LiveSessions();
  const stuck = fake(false);
  live.track(stuck.s, stuck.done);
  await live.drainAll(10);
  assert.equal(stuck.s.drained, 1);
  assert.equal(stuck.s.destroyed, 1);
});

test("a session that starts while draining is drained at once; a finished one is forgotten", async () => {
  const live = new LiveSessions();
  const first = fake(false);
  live.track(first.s, first.done);
  first.end();
  await first.done;
  await new Promise((r) => setImmediate(r));
  assert.equal(live.size, 0);
  void live.drainAll(60_000);
  const late = fake(true);
  live.track(late.s, late.done);
  assert.equal(late.s.drained, 1);
});

test("a session that failed is forgotten; drainAll with none left returns at once", {
  timeout: 10_000,
}, async () => {
  const live = new LiveSessions();
  const failed = Promise.reject(new Error("gone"));
  live.track({ drain() {}, destroy() {} }, failed);
  await failed.catch(() => {});
  await new Promise((r) => setImmediate(r));
  assert.equal(live.size, 0);
  // Waiting out a grace period this long would fail the test on its timeout.
  await live.drainAll(3_600_000);
});

test("a connection's session drains through the session and is destroyed with its socket", () => {
  const calls: string[] = [];
  const s = new ConnectionSession(
    { drain: () => calls.push("drain") },
    { destroy: () => calls.push("destroy") },
  );
  s.drain();
  s.destroy();
  assert.deepEqual(calls, ["drain", "destroy"]);
});
