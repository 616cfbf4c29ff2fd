import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { test } from "node:test";
import { Metadata, status } from "@grpc/grpc-js";
import type { Stream__Output } from "../../gen/nova/v1/Stream.ts";
import { createMemoryStore } from "../../platform/objstore/index.ts";
import type { StarContext } from "../context.ts";
import { Fleet } from "../fleet/members.ts";
import { DEFAULT_LIMITS } from "../limits.ts";
import { Catalog } from "../storage/catalog.ts";
import { ChunkStore } from "../storage/chunk-store.ts";
import { Followers } from "../stream/follower-view.ts";
import { followerSubscribe } from "./follower-subscribe.ts";

/** A leader's Subscribe as the relay sees it: records whether it was opened and cancelled. */
class FakeUpstream extends EventEmitter {
  cancelled = false;
  cancel(): void {
    this.cancelled = true;
    queueMicrotask(() => this.emit("error", { code: status.CANCELLED, details: "cancelled" }));
  }
  pause(): void {}
  resume(): void {}
}

/** A star "a" in a fleet whose other member "b" leads `key`, with a leader that never answers. */
function follower() {
  const members = [
    { name: "a", address: "127.0.0.1:1" },
    { name: "b", address: "127.0.0.1:2" },
  ];
  const fleet = new Fleet("a", members);
  let key = "k";
  for (let i = 0; fleet.leads("bkt", key); i++) key = `k${i}`;
  const store = createMemoryStore();
  const chunks = new ChunkStore(store, 0);
  const upstreams: FakeUpstream[] = [];
  const ctx = {
    fleet,
    chunks,
    limits: DEFAULT_LIMITS,
    followers: new Followers(chunks, new Catalog(store), 16),
    peers: {
      client: () => ({
        Subscribe: () => {
          const upstream = new FakeUpstream();
          upstreams.push(upstream);
          return upstream;
        },
      }),
    },
  } as unknown as StarContext;
  const stream = { stream_id: "s", bucket: "bkt", key } as Stream__Output;
  const call = Object.assign(new EventEmitter(), {
    request: { bucket: "bkt", key, clamp: false },
    metadata: new Metadata(),
    write: () => true,
  });
  return {
    ctx,
    stream,
    call: call as unknown as Parameters<typeof followerSubscribe>[2],
    upstreams,
  };
}

test("a reader gone before the relay starts opens no call to the leader", async () => {
  const { ctx, stream, call, upstreams } = follower();
  const abort = new AbortController();
  abort.abort();
  await followerSubscribe(ctx, stream, call, abort.signal);
  assert.equal(upstreams.length, 0);
});

test("a reader leaving during the relay cancels the leader's call", async () => {
  const { ctx, stream, call, upstreams } = follower();
  const abort = new AbortController();
  const relayed = followerSubscribe(ctx, stream, call, abort.signal);
  assert.equal(upstreams.length, 1);
  abort.abort();
  await relayed;
  assert.equal(upstreams[0]?.cancelled, true);
});
