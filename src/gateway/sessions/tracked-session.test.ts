import assert from "node:assert/strict";
import { test } from "node:test";
import { HttpError } from "../errors/index.ts";
import { ClientSessions, createMetrics, LiveSessions } from "../http/index.ts";
import { TrackedSession, trackSession } from "./tracked-session.ts";

function setup(maxPerClient = 2) {
  return {
    metrics: createMetrics(),
    sessions: new LiveSessions(),
    clientSessions: new ClientSessions(maxPerClient),
  };
}

async function openSessions(deps: ReturnType<typeof setup>): Promise<number> {
  const values = (await deps.metrics.sessions.get()).values;
  return values.find((v) => v.labels.kind === "sse")?.value ?? 0;
}

function fakeSession() {
  const s = { drained: 0, destroyed: 0, released: 0 };
  return {
    s,
    session: { drain: () => s.drained++, release: () => s.released++ },
    socket: { destroy: () => s.destroyed++ },
  };
}

test("a tracked session is counted, holds its client's share and is drained, until it ends once", async () => {
  const deps = setup(1);
  const { s, session, socket } = fakeSession();
  const tracked = new TrackedSession(deps, "sse", "client-a", session, socket);
  assert.equal(await openSessions(deps), 1);
  assert.equal(deps.clientSessions.count("client-a"), 1);
  assert.equal(deps.sessions.size, 0, "not drained before it has started");
  tracked.live();
  assert.equal(deps.sessions.size, 1);
  const draining = deps.sessions.drainAll(60_000);
  assert.equal(s.drained, 1);
  tracked.end();
  tracked.end();
  await draining;
  assert.equal(s.destroyed, 0);
  assert.equal(await openSessions(deps), 0);
  assert.equal(deps.clientSessions.count("client-a"), 0);
  assert.equal(deps.clientSessions.clients, 0);
});

test("past its client's share a session is refused with 429 and nothing is held", async () => {
  const deps = setup(1);
  const first = fakeSession();
  new TrackedSession(deps, "sse", "client-a", first.session, first.socket);
  const second = fakeSession();
  assert.throws(
    () => new TrackedSession(deps, "sse", "client-a", second.session, second.socket),
    (err: unknown) => err instanceof HttpError && err.status === 429 && err.retryable,
  );
  assert.equal(await openSessions(deps), 1);
  assert.equal(deps.clientSessions.count("client-a"), 1);
  // Another client has its own share.
  const other = fakeSession();
  new TrackedSession(deps, "sse", "client-b", other.session, other.socket).end();
  assert.equal(deps.clientSessions.count("client-b"), 0);
});

test("a session that starts while the gateway drains is drained at once", () => {
  const deps = setup();
  void deps.sessions.drainAll(60_000);
  const { s, session, socket } = fakeSession();
  const tracked = new TrackedSession(deps, "sse", "client-a", session, socket);
  tracked.live();
  assert.equal(s.drained, 1);
  tracked.end();
  assert.equal(deps.sessions.size, 0);
});

test("trackSession ends the tracking when the run settles, rejected or not, and refuses past the share", async () => {
  const deps = setup(1);
  const ok = fakeSession();
  const value = await trackSession(deps, "sse", "c", ok.session, ok.socket, async () => 7);
  assert.equal(value, 7);
  assert.equal(deps.clientSessions.count("c"), 0);
  assert.equal(ok.s.released, 1, "its sources released once it ended");
  const bad = fakeSession();
  await assert.rejects(
    trackSession(deps, "sse", "c", bad.session, bad.socket, () => {
      throw new Error("boom");
    }),
    /boom/,
  );
  assert.equal(bad.s.released, 1, "released though it never ran");
  assert.equal(deps.clientSessions.count("c"), 0);
  assert.equal(deps.sessions.size, 0);
  let release: () => void = () => {};
  const held = trackSession(deps, "sse", "c", ok.session, ok.socket, () => {
    return new Promise<void>((resolve) => {
      release = resolve;
    });
  });
  await assert.rejects(
    trackSession(deps, "sse", "c", bad.session, bad.socket, async () => {}),
    (err: unknown) => err instanceof HttpError && err.status === 429,
  );
  release();
  await held;
  assert.equal(await openSessions(deps), 0);
});
