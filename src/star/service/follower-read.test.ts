import assert from "node:assert/strict";
import { test } from "node:test";
import { Metadata, status } from "@grpc/grpc-js";
import pino from "pino";
import { encodeLogObject } from "../../contract/codec/index.ts";
import type { ReadRequest__Output } from "../../gen/nova/v1/ReadRequest.ts";
import type { Stream__Output } from "../../gen/nova/v1/Stream.ts";
import { createMemoryStore } from "../../platform/objstore/index.ts";
import type { StarContext } from "../context.ts";
import { ANSWERED_KEY } from "../errors.ts";
import { Fleet } from "../fleet/members.ts";
import { DEFAULT_LIMITS } from "../limits.ts";
import { Catalog } from "../storage/catalog.ts";
import { ChunkStore } from "../storage/chunk-store.ts";
import { logKey } from "../storage/keys.ts";
import { Followers } from "../stream/follower-view.ts";
import { LogReader } from "../wal/log-objects.ts";
import { followerRead } from "./follower-read.ts";

/** Leader b's log object holding records [first, first + count) of stream s. */
const logObject = (key: string, first: number, count: number) =>
  encodeLogObject([
    {
      streamId: "s",
      bucket: "bkt",
      key,
      firstSeqNum: BigInt(first),
      records: Array.from({ length: count }, (_, i) => ({
        headers: [],
        body: Buffer.from(String(first + i)),
        timestampMs: BigInt(first + i),
      })),
    },
  ]);

/** Member a, following a stream b leads; b answers each Read as `answer` says. */
function follower(answer: () => { err?: object; res?: object }) {
  const fleet = new Fleet("a", [
    { name: "a", address: "127.0.0.1:1" },
    { name: "b", address: "127.0.0.1:2" },
  ]);
  let key = "k";
  for (let i = 0; fleet.leads("bkt", key); i++) key = `k${i}`;
  const store = createMemoryStore();
  const chunks = new ChunkStore(store, 1 << 20);
  const Read = (_req: unknown, _md: unknown, _o: unknown, cb: (e: unknown, r: unknown) => void) => {
    const { err, res } = answer();
    queueMicrotask(() => cb(err ?? null, res));
    return { cancel() {} };
  };
  const ctx = {
    fleet,
    chunks,
    limits: DEFAULT_LIMITS,
    logs: new LogReader(store, 1, pino({ level: "silent" })),
    followers: new Followers(chunks, new Catalog(store), 16),
    peers: { client: () => ({ Read }) },
  } as unknown as StarContext;
  const stream = { stream_id: "s", bucket: "bkt", key } as Stream__Output;
  const read = (seq: number) =>
    followerRead(ctx, stream, {
      bucket: "bkt",
      key,
      start: "seq_num",
      seq_num: String(seq),
      clamp: false,
      count: 0,
      bytes: "0",
    } as ReadRequest__Output);
  const readWith = (req: Partial<ReadRequest__Output>) =>
    followerRead(ctx, stream, { bucket: "bkt", key, ...req } as ReadRequest__Output);
  return { store, key, read, readWith };
}

const bodies = (page: { records?: { body?: Uint8Array | string }[] }) =>
  (page.records ?? []).map((r) => Buffer.from(r.body ?? "").toString());

test("a leader that answers UNAVAILABLE itself is up: its answer stands, its log is not read", async () => {
  const answered = new Metadata();
  answered.set(ANSWERED_KEY, "1");
  const f = follower(() => ({
    err: { code: status.UNAVAILABLE, details: "object storage is unavailable", metadata: answered },
  }));
  // A log object whose PUT the leader saw fail: it acked none of it, and will reuse 10..14.
  await f.store.put(logKey("b", 1n), logObject(f.key, 0, 15));
  await assert.rejects(f.read(10), (err: { code: number }) => err.code === status.UNAVAILABLE);
});

test("a leader that does not answer: what it acked comes from its log objects", async () => {
  const f = follower(() => ({
    err: {
      code: status.UNAVAILABLE,
      details: "No connection established",
      metadata: new Metadata(),
    },
  }));
  await f.store.put(logKey("b", 1n), logObject(f.key, 0, 15));
  const page = await f.read(10);
  assert.deepEqual(bodies(page), ["10", "11", "12", "13", "14"]);
  assert.equal(page.tail?.seq_num, "15");
});

test("storage short of the tail the leader acknowledged is no answer: UNAVAILABLE, not a short page", async () => {
  let calls = 0;
  const f = follower(() =>
    ++calls === 1
      ? { res: { records: [], tail: { seq_num: "10", timestamp_ms: "9" } } }
      : {
          err: {
            code: status.UNAVAILABLE,
            details: "Connection dropped",
            metadata: new Metadata(),
          },
        },
  );
  // Records 0..9 were acknowledged by the member that led before a hand-back: not in b's log.
  assert.equal((await f.read(10)).tail?.seq_num, "10");
  await assert.rejects(f.read(5), (err: { code: number; message: string }) => {
    return err.code === status.UNAVAILABLE && /below the tail 10/.test(err.message);
  });
});

test("a leader that does not answer: a timestamp, a tail_offset or the tail resolve against storage", async () => {
  const f = follower(() => ({
    err: {
      code: status.UNAVAILABLE,
      details: "No connection established",
      metadata: new Metadata(),
    },
  }));
  await f.store.put(logKey("b", 1n), logObject(f.key, 0, 10));
  const read = (start: Partial<ReadRequest__Output>) =>
    f.readWith({ ...start, clamp: false, count: 0, bytes: "0" });
  assert.deepEqual(bodies(await read({ start: "tail_offset", tail_offset: "3" })), ["7", "8", "9"]);
  // Record n is stamped n.
  assert.deepEqual(bodies(await read({ start: "timestamp_ms", timestamp_ms: "8" })), ["8", "9"]);
  const tail = await read({});
  assert.deepEqual(bodies(tail), []);
  assert.equal(tail.tail?.seq_num, "10");
});

test("a closed stream's last records the page has no room for: the page does not say closed", async () => {
  const f = follower(() => ({
    res: {
      records: [{ seq_num: "2", timestamp_ms: "1", body: Buffer.from("12345678"), headers: [] }],
      tail: { seq_num: "3", timestamp_ms: "1" },
      closed: true,
    },
  }));
  // Records 0 and 1 settled, 3 bytes each; the leader always gives at least one record.
  const chunks = new ChunkStore(f.store, 1 << 20);
  const settled = [0, 1].map((i) => ({
    headers: [],
    body: Buffer.from(`ab${i}`),
    timestampMs: 1n,
  }));
  await chunks.write("s", 0n, settled, 6);
  const page = await f.readWith({ start: "seq_num", seq_num: "0", count: 0, bytes: "10" });
  assert.deepEqual(bodies(page), ["ab0", "ab1"]);
  assert.equal(page.closed, false, "record 2 is still to be read");
  const whole = await f.readWith({ start: "seq_num", seq_num: "0", count: 0, bytes: "100" });
  assert.deepEqual(bodies(whole), ["ab0", "ab1", "12345678"]);
  assert.equal(whole.closed, true);
});
