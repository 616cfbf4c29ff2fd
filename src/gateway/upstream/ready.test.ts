import assert from "node:assert/strict";
import { test } from "node:test";
import * as grpc from "@grpc/grpc-js";
import { deadAddress, FakeStar } from "./fake-star.test-helper.ts";
import { awaitReady } from "./ready.ts";

const channelTo = (address: string) =>
  new grpc.Client(address, grpc.credentials.createInsecure()).getChannel();

test("a live star's channel connects and is ready", async (t) => {
  const star = await FakeStar.start("a");
  const channel = channelTo(star.address);
  t.after(() => {
    channel.close();
    star.stop();
  });
  assert.equal(await awaitReady(channel, Date.now() + 5_000), "ready");
  assert.equal(await awaitReady(channel, Date.now() + 5_000), "ready");
});

test("an address nothing listens on is unreachable, well before the deadline", async (t) => {
  const channel = channelTo(await deadAddress());
  t.after(() => channel.close());
  assert.equal(await awaitReady(channel, Infinity), "unreachable");
});

test("a closed channel is unreachable; an aborted signal wins at once", async () => {
  const channel = channelTo("127.0.0.1:1");
  channel.close();
  assert.equal(await awaitReady(channel, Infinity), "unreachable");
  const other = channelTo("127.0.0.1:1");
  try {
    assert.equal(await awaitReady(other, Infinity, AbortSignal.abort()), "aborted");
  } finally {
    other.close();
  }
});
