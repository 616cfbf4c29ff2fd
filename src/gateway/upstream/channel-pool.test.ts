import assert from "node:assert/strict";
import { test } from "node:test";
import { connectivityState } from "@grpc/grpc-js";
import { GRPC_MESSAGE_LIMIT } from "../../contract/proto/index.ts";
import { CHANNEL_OPTIONS, ChannelPool, type Lease } from "./channel-pool.ts";
import { FleetError } from "./errors.ts";
import { FakeStar, waitFor } from "./fake-star.test-helper.ts";

// Channels connect lazily, so these addresses are never dialed.
const shutDown = (lease: Lease) =>
  lease.client.getChannel().getConnectivityState(false) === connectivityState.SHUTDOWN;

/** A lease taken and given back at once: a call that has ended. */
function acquireAndRelease(pool: ChannelPool, address: string): Lease {
  const lease = pool.acquire(address);
  lease.release();
  return lease;
}

test("one channel per address, reused across calls", (t) => {
  const pool = new ChannelPool();
  t.after(() => pool.close());
  const a1 = pool.acquire("127.0.0.1:1001");
  const a2 = pool.acquire("127.0.0.1:1001");
  const b = pool.acquire("127.0.0.1:1002");
  assert.equal(a1.client, a2.client);
  assert.notEqual(a1.client, b.client);
  assert.equal(pool.size, 2);
  a1.release();
  a2.release();
  const a3 = pool.acquire("127.0.0.1:1001");
  assert.equal(a3.client, a1.client);
});

test("subscriptions have a lane of their own: another channel, on a connection of its own", (t) => {
  const pool = new ChannelPool();
  t.after(() => pool.close());
  const calls = pool.acquire("127.0.0.1:1001");
  const subs1 = pool.acquire("127.0.0.1:1001", "subscriptions");
  const subs2 = pool.acquire("127.0.0.1:1001", "subscriptions");
  assert.notEqual(calls.client, subs1.client);
  assert.equal(subs1.client, subs2.client);
  assert.equal(subs1.address, "127.0.0.1:1001");
  assert.equal(pool.size, 2);
});

test("past the bound the least recently used idle channel is closed", (t) => {
  const pool = new ChannelPool({ maxChannels: 2 });
  t.after(() => pool.close());
  const use = (address: string) => acquireAndRelease(pool, address);
  const a = use("127.0.0.1:1001");
  const b = use("127.0.0.1:1002");
  use("127.0.0.1:1001"); // a becomes the most recently used
  const c = use("127.0.0.1:1003");
  assert.equal(pool.size, 2);
  assert.ok(shutDown(b));
  assert.ok(!shutDown(a));
  assert.ok(!shutDown(c));
  // A closed address is dialed again with a fresh channel.
  const b2 = use("127.0.0.1:1002");
  assert.notEqual(b2.client, b.client);
  assert.ok(!shutDown(b2));
});

test("recency holds across runs of calls to one star and an evicted newest channel", (t) => {
  const pool = new ChannelPool({ maxChannels: 2 });
  t.after(() => pool.close());
  const use = (address: string) => acquireAndRelease(pool, address);
  const a = use("127.0.0.1:1001");
  use("127.0.0.1:1001");
  const b = use("127.0.0.1:1002");
  use("127.0.0.1:1002");
  use("127.0.0.1:1001"); // a becomes the most recently used again
  use("127.0.0.1:1003");
  assert.ok(shutDown(b));
  assert.ok(!shutDown(a));
  // The most recently used channel itself is closed when every other one is busy.
  const held = [pool.acquire("127.0.0.1:1001"), pool.acquire("127.0.0.1:1003")];
  const d = use("127.0.0.1:1004");
  assert.ok(shutDown(d));
  const d2 = pool.acquire("127.0.0.1:1004");
  assert.notEqual(d2.client, d.client);
  for (const lease of [...held, d2]) lease.release();
  assert.equal(pool.size, 2);
  assert.ok(!shutDown(d2));
});

test("a channel with calls in flight is never closed; the pool shrinks when they end", (t) => {
  const pool = new ChannelPool({ maxChannels: 1 });
  t.after(() => pool.close());
  const a = pool.acquire("127.0.0.1:1001");
  const b = pool.acquire("127.0.0.1:1002");
  assert.equal(pool.size, 2);
  assert.ok(!shutDown(a) && !shutDown(b));
  a.release();
  a.release(); // releasing twice is harmless
  assert.equal(pool.size, 1);
  assert.ok(shutDown(a));
  assert.ok(!shutDown(b));
  b.release();
  assert.equal(pool.size, 1);
});

test("close() closes every channel and refuses new leases", () => {
  const pool = new ChannelPool();
  const a = pool.acquire("127.0.0.1:1001");
  const b = pool.acquire("127.0.0.1:1002");
  b.release();
  pool.close();
  assert.ok(shutDown(a) && shutDown(b));
  assert.equal(pool.size, 0);
  assert.throws(
    () => pool.acquire("127.0.0.1:1001"),
    (err) => err instanceof FleetError && err.code === "closed",
  );
});

test("channels carry the message limits and keepalive the gateway needs", () => {
  assert.equal(CHANNEL_OPTIONS["grpc.max_receive_message_length"], GRPC_MESSAGE_LIMIT);
  assert.equal(CHANNEL_OPTIONS["grpc.max_send_message_length"], GRPC_MESSAGE_LIMIT);
  assert.equal(CHANNEL_OPTIONS["grpc.keepalive_time_ms"], 30_000);
  assert.equal(CHANNEL_OPTIONS["grpc.keepalive_timeout_ms"], 10_000);
  assert.equal(CHANNEL_OPTIONS["grpc.keepalive_permit_without_calls"], 1);
});

test("the calls and bulk lanes keep a bare HTTP/2 session each for unary calls, once connected; subscriptions do not", async (t) => {
  const star = await FakeStar.start("s");
  t.after(() => star.stop());
  const pool = new ChannelPool();
  const calls = pool.acquire(star.address);
  assert.equal(calls.bare(), undefined, "connecting: unary calls take the channel meanwhile");
  await waitFor("the bare session", () => calls.bare() !== undefined);
  const session = calls.bare();
  assert.equal(pool.acquire(star.address).bare(), session, "one per star and lane");
  const bulk = pool.acquire(star.address, "bulk");
  assert.equal(bulk.bare(), undefined, "the bulk lane's own, connecting");
  await waitFor("the bulk lane's bare session", () => bulk.bare() !== undefined);
  const bulkSession = bulk.bare();
  assert.notEqual(bulkSession, session, "a connection of its own");
  assert.notEqual(bulkSession?.socket.localPort, session?.socket.localPort);
  const subscriptions = pool.acquire(star.address, "subscriptions");
  assert.equal(subscriptions.bare(), undefined);
  pool.close();
  assert.ok(session?.closed && bulkSession?.closed, "closed with the pool");
});

test("a bare session that goes away is opened again by the next call", async (t) => {
  const star = await FakeStar.start("s");
  t.after(() => star.stop());
  const pool = new ChannelPool();
  t.after(() => pool.close());
  const lease = pool.acquire(star.address);
  await waitFor("the bare session", () => lease.bare() !== undefined);
  const first = lease.bare();
  first?.destroy();
  await waitFor("a new bare session", () => {
    const now = lease.bare();
    return now !== undefined && now !== first;
  });
});
