// Deleting and reconfiguring a stream over the real registry, logs and catalog on a memory
// store, with a star context around them: delete_on_empty against a reconfigure under way and
// when its tombstone fails, a deleted stream's reclaim run again by a repeated DeleteStream, and
// leadership moving while a descriptor write waits for the stream's lock; a DeleteBucket against
// a create and a reconfigure under way.
import assert from "node:assert/strict";
import { test } from "node:test";
import { status } from "@grpc/grpc-js";
import pino from "pino";
import { KeyTurns } from "../../platform/concurrency/key-turns.ts";
import { createMemoryStore, type ObjectStore } from "../../platform/objstore/index.ts";
import { validateBatch } from "../append/validate-batch.ts";
import type { StarContext } from "../context.ts";
import { DEFAULT_LIMITS } from "../limits.ts";
import { Catalog } from "../storage/catalog.ts";
import { ChunkStore } from "../storage/chunk-store.ts";
import { chunksPrefix } from "../storage/keys.ts";
import { StreamRegistry } from "../stream/registry.ts";
import { startedWal } from "../wal/started-wal.test-helper.ts";
import { createBucket, deleteBucket } from "./buckets.ts";
import { newBucket, newStream } from "./config.ts";
import { StreamUses } from "./expiry.ts";
import {
  createStream,
  deleteIfEmpty,
  deleteStream,
  listStreams,
  reconfigureStreamVerb,
  resolveLedDescriptor,
  withLedLog,
} from "./streams.ts";

/**
 * A star leading every stream, on `store` (a chunk per `settleChunkBytes`, settled as each
 * commit lands); its background tasks are kept to be awaited.
 */
async function star(store: ObjectStore, settleChunkBytes = 1) {
  const catalog = new Catalog(store);
  const chunks = new ChunkStore(store, 1 << 20);
  const wal = startedWal(store);
  const registry = new StreamRegistry(
    catalog,
    chunks,
    {
      throughputMaxWaitMs: DEFAULT_LIMITS.throughputMaxWaitMs,
      wal,
      settleChunkBytes,
      maxOpen: DEFAULT_LIMITS.maxOpenStreams,
    },
    async () => {},
  );
  const self = { name: "star", address: "127.0.0.1:1" };
  const other = { name: "other", address: "127.0.0.1:2" };
  const leading = { now: true };
  const background: Promise<void>[] = [];
  const ctx = {
    id: "star",
    catalog,
    chunks,
    registry,
    uses: new StreamUses(0),
    now: Date.now,
    locks: new KeyTurns(),
    fleet: {
      self,
      leaderOf: () => (leading.now ? self : other),
      bucketLeaderOf: () => self,
      leads: () => leading.now,
    },
    lease: undefined,
    limits: DEFAULT_LIMITS,
    log: pino({ level: "silent" }),
    background: (_what: string, task: () => Promise<void>) =>
      background.push(task().catch(() => undefined)),
  } as unknown as StarContext;
  await catalog.putBucket(newBucket("logs", null, "", 0));
  const d = {
    ...newStream(newBucket("logs", null, "", 0), "k", null, "", "stream-1", 0),
    class: "CLASS_EXPRESS" as const,
    delete_on_empty_min_age_ms: "1",
  };
  await catalog.putStream(d);
  const log = await registry.open(d);
  const append = (body: string) =>
    log.append(
      validateBatch(
        [{ body: Buffer.from(body), headers: [] }],
        "TIMESTAMPING_MODE_CLIENT_PREFER",
        DEFAULT_LIMITS,
      ),
      { arrivalMs: 1n },
    );
  const settled = () => Promise.all(background.splice(0));
  return { ctx, catalog, log, append, settled, leading };
}

/** `store` whose next call of `method` on a key `matches` says is held until released. */
function holding(
  inner: ObjectStore,
  method: "put" | "delete",
  matches: (key: string, body?: Uint8Array) => boolean,
) {
  const held: { holding: boolean; release?: () => void; fail?: boolean } = { holding: false };
  const store = new Proxy(inner, {
    get(target, name) {
      if (name === method) {
        return async (first: string | string[], ...rest: unknown[]) => {
          const key = Array.isArray(first) ? (first[0] ?? "") : first;
          if (held.holding && matches(key, rest[0] as Uint8Array | undefined)) {
            held.holding = false;
            if (held.fail) throw new Error("503 SlowDown");
            await new Promise<void>((resolve) => {
              held.release = resolve;
            });
          }
          return Reflect.apply(Reflect.get(target, name), target, [first, ...rest]);
        };
      }
      const value = Reflect.get(target, name);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { store, held };
}

test("delete_on_empty and a reconfigure under way: the stream ends deleted, not back alive", async () => {
  // The next live descriptor's PUT (the reconfigure's) is held until released.
  const { store, held } = holding(
    createMemoryStore(),
    "put",
    (key, body) =>
      key.startsWith("meta/streams/") &&
      JSON.parse(Buffer.from(body as Uint8Array).toString()).deleted_at_unix_ms === "0",
  );
  const { ctx, catalog, log, append, settled } = await star(store);
  await append("x");
  await log.trimTo(1n);
  held.holding = true;
  const reconfigured = reconfigureStreamVerb(ctx, "logs", "k", {
    retention_max_age_ms: "60000",
  } as Parameters<typeof reconfigureStreamVerb>[3]);
  await new Promise((resolve) => setImmediate(resolve));
  const deleting = deleteIfEmpty(ctx, log);
  await new Promise((resolve) => setImmediate(resolve));
  held.release?.();
  await Promise.all([reconfigured, deleting]);
  await settled();
  const now = await catalog.getStream("logs", "k", { fresh: true });
  assert.notEqual(now?.deleted_at_unix_ms, "0", "the tombstone stands");
  assert.equal(now?.retention_max_age_ms, "60000", "made from the reconfigured descriptor");
});

test("a deleted stream whose reclaim failed is reclaimed when it is deleted again", async () => {
  const inner = createMemoryStore();
  const { store, held } = holding(inner, "delete", (key) =>
    key.startsWith(chunksPrefix("stream-1")),
  );
  const { ctx, log, append, settled } = await star(store);
  await append("a");
  await append("b");
  await log.settle();
  assert.equal((await inner.list(chunksPrefix("stream-1"))).objects.length, 2);
  held.holding = true;
  held.fail = true;
  await deleteStream(ctx, "logs", "k");
  await settled();
  assert.equal((await inner.list(chunksPrefix("stream-1"))).objects.length, 2, "it failed");
  await deleteStream(ctx, "logs", "k");
  await settled();
  assert.deepEqual((await inner.list(chunksPrefix("stream-1"))).objects, []);
});

test("delete_on_empty whose tombstone fails leaves the stream to open again where it was", async () => {
  // The tombstone fails, and so does the settle after it: storage is down for a moment.
  const tombstone = (key: string, body?: Uint8Array) =>
    key.startsWith("meta/streams/") &&
    JSON.parse(Buffer.from(body as Uint8Array).toString()).deleted_at_unix_ms !== "0";
  const chunks = holding(createMemoryStore(), "put", (key) => key.startsWith("chunks/"));
  const { store, held } = holding(chunks.store, "put", tombstone);
  chunks.held.holding = true;
  chunks.held.fail = true;
  const { ctx, log, append, settled } = await star(store, 1 << 20);
  // Appended and trimmed, not yet settled: the records are only in the log and in memory.
  await append("a");
  await append("b");
  await log.trimTo(2n);
  held.holding = true;
  held.fail = true;
  await assert.rejects(deleteIfEmpty(ctx, log), /SlowDown/);
  await settled();
  const again = await ctx.registry.open(log.descriptor);
  assert.notEqual(again, log);
  assert.equal(again.tail.seqNum, 2n, "the tail it had: no seq_num is handed out twice");
  assert.equal((await append_to(again, "c")).start.seqNum, 2n);
});

function append_to(log: Awaited<ReturnType<StarContext["registry"]["open"]>>, body: string) {
  return log.append(
    validateBatch(
      [{ body: Buffer.from(body), headers: [] }],
      "TIMESTAMPING_MODE_CLIENT_PREFER",
      DEFAULT_LIMITS,
    ),
    { arrivalMs: 2n },
  );
}

test("a descriptor write that waited for the lock while leadership moved answers NotOwner", async () => {
  const { ctx, catalog, leading } = await star(createMemoryStore());
  let release = () => {};
  const holder = ctx.locks.take("stream/logs/k", () => new Promise<void>((r) => (release = r)));
  const config = { retention_max_age_ms: "60000" } as Parameters<typeof reconfigureStreamVerb>[3];
  const reconfigured = reconfigureStreamVerb(ctx, "logs", "k", config);
  const deleted = deleteStream(ctx, "logs", "k");
  // A hand-back moves the stream while both wait (the holder's turn has begun by then).
  await new Promise((resolve) => setImmediate(resolve));
  leading.now = false;
  release();
  await holder;
  for (const write of [reconfigured, deleted]) {
    await assert.rejects(write, (err: { code: number }) => err.code === status.FAILED_PRECONDITION);
  }
  const now = await catalog.getStream("logs", "k", { fresh: true });
  assert.equal(now?.deleted_at_unix_ms, "0");
  assert.equal(now?.retention_max_age_ms, "0");
});

/** Turns of the event loop until `held` holds a call, or fails after a deadline. */
async function heldCall(held: { release?: () => void }): Promise<() => void> {
  const deadline = performance.now() + 5000;
  while (!held.release) {
    if (performance.now() > deadline) assert.fail("the call was never held");
    await new Promise((resolve) => setImmediate(resolve));
  }
  return held.release;
}

const liveStreamPut = (key: string, body?: Uint8Array) =>
  key.startsWith("meta/streams/") &&
  JSON.parse(Buffer.from(body as Uint8Array).toString()).deleted_at_unix_ms === "0";

test("a stream created while DeleteBucket runs is undone, and never shows in the bucket made again", async () => {
  const { store, held } = holding(createMemoryStore(), "put", liveStreamPut);
  const { ctx, settled } = await star(store);
  held.holding = true;
  const created = createStream(ctx, "logs", "new", null, "");
  const release = await heldCall(held);
  // The bucket's sweep lists its streams while the create's descriptor is still on its way.
  await deleteBucket(ctx, "logs");
  release();
  await assert.rejects(created, (err: { code: number }) => err.code === status.NOT_FOUND);
  await createBucket(ctx, { name: "logs", config: null, creation_token: "" } as never);
  assert.deepEqual((await listStreams(ctx, "logs", "", "", 100)).streams, []);
  await settled();
});

test("a reconfigure under way when DeleteBucket sweeps cannot bring the stream back", async () => {
  const { store, held } = holding(createMemoryStore(), "put", liveStreamPut);
  const { ctx, catalog, settled } = await star(store);
  held.holding = true;
  const config = { retention_max_age_ms: "60000" } as Parameters<typeof reconfigureStreamVerb>[3];
  const reconfigured = reconfigureStreamVerb(ctx, "logs", "k", config);
  const release = await heldCall(held);
  const deleting = deleteBucket(ctx, "logs");
  await new Promise((resolve) => setImmediate(resolve));
  release();
  await Promise.allSettled([reconfigured]);
  await deleting;
  await settled();
  const now = await catalog.getStream("logs", "k", { fresh: true });
  assert.notEqual(now?.deleted_at_unix_ms, "0", "the tombstone stands");
  await createBucket(ctx, { name: "logs", config: null, creation_token: "" } as never);
  assert.deepEqual((await listStreams(ctx, "logs", "", "", 100)).streams, []);
});

test("a bucket swept once is not listed again: a DeleteBucket again, or a CreateBucket of its name", async () => {
  const inner = createMemoryStore();
  let listings = 0;
  const store = new Proxy(inner, {
    get(target, name) {
      const value = Reflect.get(target, name);
      if (name !== "listAll") return typeof value === "function" ? value.bind(target) : value;
      return (prefix: string, ...rest: unknown[]) => {
        if (prefix.startsWith("meta/streams/logs/")) listings++;
        return Reflect.apply(value, target, [prefix, ...rest]);
      };
    },
  });
  const { ctx, catalog, settled } = await star(store);
  await deleteBucket(ctx, "logs");
  assert.equal(listings, 1);
  assert.equal((await catalog.getBucket("logs", { fresh: true }))?.streams_swept, true);
  await deleteBucket(ctx, "logs");
  await createBucket(ctx, { name: "logs", config: null, creation_token: "" } as never);
  assert.equal(listings, 1, "neither listed the old streams again");
  assert.deepEqual((await listStreams(ctx, "logs", "", "", 100)).streams, []);
  await settled();
});

test("a stream page after start_after never repeats keys at or before it in byte order", async () => {
  const { ctx } = await star(createMemoryStore());
  for (const key of ["\uFF01x", "\uFF01y"]) await createStream(ctx, "logs", key, null, "");
  // "\u{1F600}a" sorts after "\uFF01x" as UTF-8 bytes (F0 > EF), before it as UTF-16 units.
  const page = await listStreams(ctx, "logs", "\uFF01", "\u{1F600}a", 100);
  assert.deepEqual(page.streams, []);
  const from = await listStreams(ctx, "logs", "\uFF01", "\uFF01x", 100);
  assert.deepEqual(
    from.streams.map((s) => s.key),
    ["\uFF01y"],
  );
});

test("an append that resolved the stream before delete_on_empty deleted it is refused, not acked", async () => {
  const { ctx, catalog, log, settled } = await star(createMemoryStore());
  const resolved = await resolveLedDescriptor(ctx, "logs", "k", "append");
  await deleteIfEmpty(ctx, log);
  await settled();
  assert.notEqual((await catalog.getStream("logs", "k", { fresh: true }))?.deleted_at_unix_ms, "0");
  const append = withLedLog(ctx, resolved, (l) =>
    l.append(
      validateBatch(
        [{ body: Buffer.from("late"), headers: [] }],
        "TIMESTAMPING_MODE_CLIENT_PREFER",
        DEFAULT_LIMITS,
      ),
      { arrivalMs: 1n },
    ),
  );
  await assert.rejects(append, (err: { code: number }) => err.code === status.NOT_FOUND);
  assert.equal(ctx.registry.counts.open, 0, "the deleted stream's log was not opened again");
});
