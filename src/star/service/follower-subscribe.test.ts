import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { test } from "node:test";
import { Metadata, status } from "@grpc/grpc-js";
import pino from "pino";
import { encodeLogObject } from "../../contract/codec/index.ts";
import type { Stream__Output } from "../../gen/nova/v1/Stream.ts";
import type { SubscribeResponse } from "../../gen/nova/v1/SubscribeResponse.ts";
import { createMemoryStore } from "../../platform/objstore/index.ts";
import type { StarContext } from "../context.ts";
import { Fleet } from "../fleet/members.ts";
import { DEFAULT_LIMITS } from "../limits.ts";
import { Catalog } from "../storage/catalog.ts";
import { ChunkStore } from "../storage/chunk-store.ts";
import { logKey } from "../storage/keys.ts";
import { Followers } from "../stream/follower-view.ts";
import { LogReader } from "../wal/log-objects.ts";
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

/**
 * A star "a" in a fleet whose other member "b" leads `key`, with a leader that never answers on
 * its own; a reader's Subscribe from `start` (none: the tail, straight to the leader).
 */
function follower(start: { start?: string; seq_num?: string } = {}) {
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
  const logs = new LogReader(store, 1, pino({ level: "silent" }));
  const ctx = {
    fleet,
    chunks,
    logs,
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
  const sent: SubscribeResponse[] = [];
  const call = Object.assign(new EventEmitter(), {
    request: { bucket: "bkt", key, clamp: false, ...start },
    metadata: new Metadata(),
    write: (message: SubscribeResponse) => sent.push(message) > 0,
  });
  return {
    ctx,
    store,
    logs,
    stream,
    call: call as unknown as Parameters<typeof followerSubscribe>[2],
    upstreams,
    sent,
  };
}

/** Leader b's log object `n` holding stream s's records [first, first + n) with bodies their seq_nums. */
const logObject = (first: number, count: number) =>
  encodeLogObject([
    {
      streamId: "s",
      bucket: "bkt",
      key: "k",
      firstSeqNum: BigInt(first),
      records: Array.from({ length: count }, (_, i) => ({
        headers: [],
        body: Buffer.from(String(first + i)),
        timestampMs: BigInt(first + i),
      })),
    },
  ]);

/** Bodies of the records sent to the reader, in order. */
const bodies = (sent: SubscribeResponse[]) =>
  sent.flatMap((m) => (m.records ?? []).map((r) => Buffer.from(r.body as Buffer).toString()));

/** Runs a follower's Subscribe whose leader sends record 0, then stops answering. */
async function leaderStopsAfterOne(f: ReturnType<typeof follower>) {
  const subscribed = followerSubscribe(f.ctx, f.stream, f.call, new AbortController().signal);
  await new Promise((r) => setImmediate(r));
  const upstream = f.upstreams[0] as FakeUpstream;
  upstream.emit("data", {
    records: [{ seq_num: "0", timestamp_ms: "0", headers: [], body: Buffer.from("0") }],
    tail: { seq_num: "1", timestamp_ms: "0" },
  });
  upstream.emit("error", { code: status.UNAVAILABLE, details: "connect ECONNREFUSED" });
  return subscribed.then(
    () => assert.fail("the call ends with the leader's status"),
    (err: { code: number; details: string }) => err,
  );
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

test("a reader leaving once the leader's call has its status, unread behind a pause, ends the relay", async () => {
  const { ctx, stream, call, upstreams } = follower();
  const abort = new AbortController();
  const relayed = followerSubscribe(ctx, stream, call, abort.signal);
  const upstream = upstreams[0] as FakeUpstream;
  // grpc-js, paused for a slow reader when the leader ended OK: no 'end' until resumed, and a
  // cancel of a call that has its status emits nothing.
  upstream.cancel = () => {
    upstream.cancelled = true;
  };
  abort.abort();
  await Promise.race([
    relayed,
    new Promise((_, reject) => {
      setTimeout(() => reject(new Error("the relay never ended")), 5_000).unref();
    }),
  ]);
  assert.equal(upstream.cancelled, true);
});

test("a leader that stops: what it acked past the cursor comes from its log, then the call ends UNAVAILABLE", async () => {
  const f = follower({ start: "seq_num", seq_num: "0" });
  await f.store.put(logKey("b", 1n), logObject(0, 2));
  await f.store.put(logKey("b", 2n), logObject(2, 3));
  // The newest object's PUT was cut short by the stop: never acked, passed over.
  await f.store.put(logKey("b", 3n), new Uint8Array(0));
  const err = await leaderStopsAfterOne(f);
  assert.equal(err.code, status.UNAVAILABLE);
  assert.match(err.details, /star b at 127\.0\.0\.1:2, which leads this, did not answer/);
  assert.deepEqual(bodies(f.sent), ["0", "1", "2", "3", "4"]);
  assert.equal(f.sent.at(-1)?.tail?.seq_num, "5");
  assert.deepEqual(f.logs.stats, { tornPassedOver: 1, damageErrors: 0 });
});

test("a damaged log object older than the newest: the call ends UNAVAILABLE naming it, nothing served from the log", async () => {
  const f = follower({ start: "seq_num", seq_num: "0" });
  await f.store.put(logKey("b", 1n), logObject(0, 2));
  const damaged = Buffer.from(logObject(2, 3));
  damaged[damaged.length - 10] = (damaged[damaged.length - 10] as number) ^ 1;
  await f.store.put(logKey("b", 2n), damaged);
  await f.store.put(logKey("b", 3n), logObject(5, 1));
  await f.store.put(logKey("b", 4n), new Uint8Array(0));
  const err = await leaderStopsAfterOne(f);
  assert.equal(err.code, status.UNAVAILABLE);
  assert.match(
    err.details,
    /^log object log\/b\/0+2 is damaged \(log object: crc mismatch\) and is not among the newest 1/,
  );
  assert.deepEqual(bodies(f.sent), ["0"], "only what the leader relayed");
  assert.deepEqual(f.logs.stats, { tornPassedOver: 0, damageErrors: 1 });
});

test("entries that stop at a gap: records before it are served, then the call ends UNAVAILABLE naming the gap", async () => {
  const f = follower({ start: "seq_num", seq_num: "0" });
  await f.store.put(logKey("b", 1n), logObject(0, 2));
  // Object 2, holding records 2 to 4, is missing.
  await f.store.put(logKey("b", 3n), logObject(5, 2));
  const err = await leaderStopsAfterOne(f);
  assert.equal(err.code, status.UNAVAILABLE);
  assert.match(err.details, /^stream s has no record 2 in its chunks or in star b's log objects/);
  assert.deepEqual(bodies(f.sent), ["0", "1"]);
  assert.deepEqual(f.logs.stats, { tornPassedOver: 0, damageErrors: 1 });
});
