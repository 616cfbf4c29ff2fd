// StreamLog, the group-commit and fencing state machine, over the in-memory object store:
// sequencing, group commit (one flush in flight) into the star's log, match and fencing refusals
// in order, Fence after the batches queued before it, settling into chunks and reads across the
// boundary, recovery on reopen after replay, ambiguous log and chunk writes, and close; the
// throughput cap on a clock the tests move: bursts held in order, refusals past the bound,
// fences behind held batches, close, rate 0 and a rate changed live; and the batch window on
// that same clock.
import assert from "node:assert/strict";
import { test } from "node:test";
import { status } from "@grpc/grpc-js";
import pino from "pino";
import { decodeLogVoid, encodeLogObject } from "../../contract/codec/index.ts";
import { findDetail } from "../../contract/proto/index.ts";
import type { Stream__Output } from "../../gen/nova/v1/Stream.ts";
import {
  createMemoryStore,
  type ObjectStore,
  type PutCondition,
} from "../../platform/objstore/index.ts";
import { withMethods } from "../../platform/objstore/store-overrides.test-helper.ts";
import { trimBody } from "../append/command-records.ts";
import { validateBatch } from "../append/validate-batch.ts";
import { streamNotFound, unavailable } from "../errors.ts";
import { newBucket, newStream } from "../lifecycle/config.ts";
import { DEFAULT_LIMITS } from "../limits.ts";
import { ProducerBudget } from "../producers/producer-table.ts";
import { Catalog, EMPTY_STATE } from "../storage/catalog.ts";
import { ChunkStore } from "../storage/chunk-store.ts";
import {
  chunksPrefix,
  logKey,
  logPrefix,
  parseChunkKey,
  parseLogKey,
  stateKey,
} from "../storage/keys.ts";
import type { CommitLog } from "../wal/commit-log.ts";
import { LogReader } from "../wal/log-objects.ts";
import { replayStored } from "../wal/replay.test-helper.ts";
import { replayLog } from "../wal/replay.ts";
import { startedWal } from "../wal/started-wal.test-helper.ts";
import { ManualClock } from "./manual-clock.test-helper.ts";
import { type AppendAck, type Clock, StreamLog, type StreamLogOptions } from "./stream-log.ts";

function descriptor(overrides: Partial<Stream__Output> = {}): Stream__Output {
  const bucket = newBucket("logs", null, "", 0);
  return { ...newStream(bucket, "k", null, "", "stream-1", 0), ...overrides };
}

function newWal(store: ObjectStore, next = 0n): CommitLog {
  return startedWal(store, "star", next);
}

async function open(
  store: ObjectStore,
  d: Stream__Output = descriptor(),
  options: Partial<StreamLogOptions> = {},
): Promise<StreamLog> {
  return StreamLog.open(d, new Catalog(store), new ChunkStore(store, 1 << 20), {
    throughputMaxWaitMs: DEFAULT_LIMITS.throughputMaxWaitMs,
    wal: newWal(store),
    settleChunkBytes: 1 << 20,
    ...options,
  });
}

/** A batch of records with these bodies, stamped by arrival. */
function batch(...bodies: string[]) {
  return stamped(undefined, ...bodies);
}

/** A batch whose records carry the client stamp `ms` (none: arrival time). */
function stamped(ms: bigint | undefined, ...bodies: string[]) {
  return validateBatch(
    bodies.map((b) => ({
      body: Buffer.from(b),
      headers: [],
      ...(ms === undefined ? {} : { timestamp_ms: ms.toString() }),
    })),
    "TIMESTAMPING_MODE_CLIENT_PREFER",
    DEFAULT_LIMITS,
  );
}

const at = (ms: number) => ({ arrivalMs: BigInt(ms) });
const range = (ack: AppendAck) => [ack.start.seqNum, ack.end.seqNum];

async function chunkCount(store: ObjectStore): Promise<number> {
  return (await store.list(chunksPrefix("stream-1"))).objects.length;
}

async function logObjects(store: ObjectStore): Promise<string[]> {
  return (await store.list(logPrefix("star"))).objects.map((o) => o.key);
}

/** A store whose PUTs of keys with `prefix` land and then fail, while `failing` says so. */
function ambiguousPuts(prefix: string) {
  const inner = createMemoryStore();
  const state = { failing: false, failed: [] as string[] };
  const put = async (key: string, body: Uint8Array) => {
    await inner.put(key, body);
    if (state.failing && key.startsWith(prefix)) {
      state.failing = false;
      state.failed.push(key);
      throw new Error("connection reset");
    }
  };
  const putIf = async (key: string, body: Uint8Array, condition: PutCondition) => {
    const etag = await inner.putIf(key, body, condition);
    if (state.failing && key.startsWith(prefix)) {
      state.failing = false;
      state.failed.push(key);
      throw new Error("connection reset");
    }
    return etag;
  };
  const store = new Proxy(inner, {
    get(target, name) {
      if (name === "put") return put;
      if (name === "putIf") return putIf;
      const value = Reflect.get(target, name);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { store, state };
}

test("appends get contiguous seq_nums in order; those queued during a flush commit as one log entry", async () => {
  const store = createMemoryStore();
  const log = await open(store, descriptor({ class: "CLASS_EXPRESS" }));
  const acks = await Promise.all([
    log.append(batch("a"), at(10)),
    log.append(batch("b", "c"), at(11)),
    log.append(batch("d"), at(12)),
    log.append(batch("e", "f", "g"), at(13)),
  ]);
  assert.deepEqual(acks.map(range), [
    [0n, 1n],
    [1n, 3n],
    [3n, 4n],
    [4n, 7n],
  ]);
  // The first flush took the first batch alone; the three queued meanwhile went in one entry
  // of the next log object. Nothing is settled yet.
  assert.equal((await logObjects(store)).length, 2);
  assert.equal(await chunkCount(store), 0);
  for (const ack of acks) assert.equal(ack.tail.seqNum >= ack.end.seqNum, true);
  assert.deepEqual(log.tail, { seqNum: 7n, timestampMs: 13n });
  const page = await log.read(0n, { maxRecords: 100, maxBytes: 1 << 20 });
  assert.deepEqual(
    page.map((r) => Buffer.from(r.body).toString()),
    ["a", "b", "c", "d", "e", "f", "g"],
  );
});

test("a timestamp never goes back: a later batch stamped earlier takes the last timestamp", async () => {
  const log = await open(createMemoryStore(), descriptor({ class: "CLASS_EXPRESS" }));
  await log.append(batch("a"), at(100));
  const ack = await log.append(batch("b"), at(50));
  assert.equal(ack.start.timestampMs, 100n);
});

test("a match_seq_num miss refuses that batch only, with the next seq_num; the rest commit", async () => {
  const log = await open(createMemoryStore(), descriptor({ class: "CLASS_EXPRESS" }));
  await log.append(batch("a"), at(1));
  const [miss, hit, after] = await Promise.allSettled([
    log.append(batch("x"), { ...at(2), matchSeqNum: 5n }),
    log.append(batch("b"), { ...at(2), matchSeqNum: 1n }),
    log.append(batch("c"), { ...at(2), matchSeqNum: 2n }),
  ]);
  assert.equal(miss.status, "rejected");
  assert.equal((miss as PromiseRejectedResult).reason.code, status.FAILED_PRECONDITION);
  assert.match((miss as PromiseRejectedResult).reason.details, /1/);
  assert.deepEqual(range((hit as PromiseFulfilledResult<AppendAck>).value), [1n, 2n]);
  assert.deepEqual(range((after as PromiseFulfilledResult<AppendAck>).value), [2n, 3n]);
  assert.equal(log.tail.seqNum, 3n);
});

test("Fence applies after the batches queued before it; then only its token is admitted", async () => {
  const log = await open(
    createMemoryStore(),
    descriptor({ class: "CLASS_EXPRESS", producer_policy: "PRODUCER_POLICY_FENCED" }),
  );
  const before = log.append(batch("a"), { ...at(1), fencingToken: "" });
  const fenced = log.fence("t1");
  const stale = log.append(batch("b"), { ...at(2), fencingToken: "" });
  const fresh = log.append(batch("c"), { ...at(3), fencingToken: "t1" });
  assert.deepEqual(range(await before), [0n, 1n]);
  assert.deepEqual((await fenced).seqNum, 1n);
  await assert.rejects(stale, (err: { code: number }) => err.code === status.FAILED_PRECONDITION);
  assert.deepEqual(range(await fresh), [1n, 2n]);
  assert.equal(log.fencingToken, "t1");
});

test("a fenced session the new token does not admit is superseded", async () => {
  const log = await open(createMemoryStore(), descriptor({ class: "CLASS_EXPRESS" }));
  const superseded: string[] = [];
  log.sessions.add({ fencingToken: "old", supersede: () => superseded.push("old") });
  log.sessions.add({ fencingToken: "new", supersede: () => superseded.push("new") });
  await log.fence("new");
  assert.deepEqual(superseded, ["old"]);
});

test("after replay, a reopened stream recovers its tail, last timestamp, trim point and fencing token", async () => {
  const store = createMemoryStore();
  const d = descriptor({ class: "CLASS_EXPRESS" });
  await new Catalog(store).putStream(d);
  const log = await open(store, d);
  await log.append(batch("a", "b"), at(7));
  await log.settle();
  await log.append(batch("c"), at(9));
  await log.fence("tok");
  assert.equal(await log.trimTo(1n), 1n);
  // As after a kill: "c" is only in a log object until replay settles it.
  // And a PUT the kill cut short: the embedded store leaves an empty object, never acked.
  const newest = (await logObjects(store)).at(-1) as string;
  const torn = logKey("star", (parseLogKey("star", newest) as bigint) + 1n);
  await store.put(torn, new Uint8Array(0));
  const replayed = await replay(store);
  assert.equal(replayed.records, 1);
  assert.deepEqual(await logObjects(store), []);
  const again = await open(store, d, { wal: newWal(store, replayed.next) });
  assert.deepEqual(again.tail, { seqNum: 3n, timestampMs: 9n });
  assert.equal(again.trimPoint, 1n);
  assert.equal(again.fencingToken, "tok");
  const ack = await again.append(batch("d"), { ...at(10), matchSeqNum: 3n });
  assert.deepEqual(range(ack), [3n, 4n]);
});

test("replay refuses a damaged log object older than the newest: UNAVAILABLE naming it, nothing settled or deleted", async () => {
  const store = createMemoryStore();
  const d = descriptor({ class: "CLASS_EXPRESS" });
  await new Catalog(store).putStream(d);
  const log = await open(store, d);
  await log.append(batch("a"), at(1));
  await log.append(batch("b"), at(2));
  await log.append(batch("c"), at(3));
  const [, middle] = await logObjects(store);
  const bytes = Buffer.from((await store.get(middle as string)) as Uint8Array);
  bytes[bytes.length - 9] = (bytes[bytes.length - 9] as number) ^ 0x40;
  await store.put(middle as string, bytes);
  const reader = new LogReader(store, 1, silent);
  const chunks = new ChunkStore(store, 1 << 20);
  await assert.rejects(
    replayLog(store, reader, new Catalog(store), chunks, "star", 1 << 20, silent),
    (err: { code: number; details: string }) =>
      err.code === status.UNAVAILABLE &&
      err.details.startsWith(`log object ${middle} is damaged (log object: crc mismatch)`),
  );
  assert.equal((await logObjects(store)).length, 3, "the log is kept for repair");
  assert.equal(await chunkCount(store), 0);
  assert.equal(reader.stats.damageErrors, 1);
});

test("the trim point moves up only, and never past the tail", async () => {
  const log = await open(createMemoryStore(), descriptor({ class: "CLASS_EXPRESS" }));
  await log.append(batch("a", "b", "c"), at(1));
  assert.equal(await log.trimTo(2n), 2n);
  assert.equal(await log.trimTo(1n), 2n);
  assert.equal(await log.trimTo(99n), 3n);
});

test("two trims at once leave the higher point, in memory and in the state object", async () => {
  const store = createMemoryStore();
  const log = await open(store, descriptor({ class: "CLASS_EXPRESS" }));
  await log.append(batch("a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"), at(1));
  const [high, low] = await Promise.all([log.trimTo(10n), log.trimTo(5n)]);
  assert.equal(high, 10n);
  assert.equal(low, 10n);
  assert.equal(log.trimPoint, 10n);
  assert.equal((await new Catalog(store).getState("stream-1")).trim_seq_num, "10");
  assert.deepEqual(await bodies(log), ["k", "l"]);
});

test("size retention counts live bytes only: what a trim took keeps no record out", async () => {
  const log = await open(createMemoryStore(), descriptor({ retention_max_bytes: "100" }), {
    settleChunkBytes: 100,
  });
  // Ten records of 10 bytes in one chunk, then a trim leaves the last one.
  await log.append(batch(..."abcdefghij".split("").map((c) => c.repeat(10))), at(1));
  await log.settle();
  await log.trimTo(9n);
  // 60 live bytes, under the limit of 100: nothing more to trim.
  await log.append(batch("x".repeat(50)), at(2));
  assert.equal(log.retentionPoint(10n), 9n);
  // Over the limit within the unsettled part: trimmed there, record by record (x, at 10).
  await log.append(batch("y".repeat(60)), at(3));
  assert.equal(log.retentionPoint(10n), 11n);
});

test("chunks whose delete failed are deleted at the next reclaim", async () => {
  const inner = createMemoryStore();
  const failing = { once: false };
  const store = new Proxy(inner, {
    get(target, name) {
      if (name === "delete" && failing.once) {
        failing.once = false;
        return async () => {
          throw new Error("503 SlowDown");
        };
      }
      const value = Reflect.get(target, name);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const log = await open(store, descriptor({ class: "CLASS_EXPRESS" }), { settleChunkBytes: 1 });
  await log.append(batch("a", "b", "c"), at(1));
  await log.settle();
  await log.trimTo(2n);
  failing.once = true;
  await assert.rejects(log.reclaim(), /SlowDown/);
  assert.equal(await chunkCount(store), 3);
  await log.reclaim();
  assert.equal(await chunkCount(store), 1);
  assert.deepEqual(await bodies(log), ["c"]);
});

test("a read loading a chunk a trim reclaims meanwhile starts at the new trim point", async () => {
  const inner = createMemoryStore();
  const held: { holding: boolean; release?: () => void } = { holding: false };
  const store = new Proxy(inner, {
    get(target, name) {
      if (name === "get") {
        return async (key: string, ...rest: unknown[]) => {
          if (held.holding && key.startsWith(chunksPrefix("stream-1"))) {
            held.holding = false;
            await new Promise<void>((resolve) => {
              held.release = resolve;
            });
          }
          return Reflect.apply(target.get, target, [key, ...rest]);
        };
      }
      const value = Reflect.get(target, name);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  // A chunk a record, and no chunk cache: every read loads from storage.
  const log = await StreamLog.open(
    descriptor({ class: "CLASS_EXPRESS" }),
    new Catalog(store),
    new ChunkStore(store, 1),
    {
      throughputMaxWaitMs: DEFAULT_LIMITS.throughputMaxWaitMs,
      wal: newWal(store),
      settleChunkBytes: 1,
    },
  );
  await log.append(batch(..."abcdefghij".split("")), at(1));
  await log.settle();
  held.holding = true;
  const reading = log.read(2n, { maxRecords: 3, maxBytes: 1 << 20 });
  await new Promise((resolve) => setImmediate(resolve));
  await log.trimTo(4n);
  await log.reclaim();
  held.release?.();
  assert.deepEqual(
    (await reading).map((r) => r.seqNum),
    [4n, 5n, 6n],
  );
  // So does a look for a timestamp (a Trim or read by time).
  held.holding = true;
  const looking = log.seqForTimestamp(0n);
  await new Promise((resolve) => setImmediate(resolve));
  await log.trimTo(6n);
  await log.reclaim();
  held.release?.();
  assert.equal(await looking, 6n);
  // Trimmed again while it read again: a retry reads from the newest trim point.
  held.holding = true;
  const again = log.read(6n, { maxRecords: 1, maxBytes: 1 << 20 });
  await new Promise((resolve) => setImmediate(resolve));
  await log.trimTo(7n);
  await log.reclaim();
  held.holding = true;
  const release = held.release;
  release?.();
  for (let i = 0; i < 100 && held.release === release; i++) {
    await new Promise((resolve) => setImmediate(resolve));
  }
  await log.trimTo(8n);
  await log.reclaim();
  held.release?.();
  await assert.rejects(again, (err: { code: number; message: string }) => {
    assert.equal(err.code, status.UNAVAILABLE);
    assert.match(err.message, /trimmed again while it was read .*; retry/);
    return true;
  });
  // A chunk missing with no trim past it is damage, and the read fails.
  const chunk = (await inner.list(chunksPrefix("stream-1"))).objects[0]?.key as string;
  await inner.delete([chunk]);
  await assert.rejects(log.read(8n, { maxRecords: 10, maxBytes: 1 << 20 }), /missing/);
});

test("a read loading a chunk while the stream is deleted fails as the delete closed it", async () => {
  const inner = createMemoryStore();
  const held: { release?: () => void } = {};
  const store = withMethods(inner, {
    get: async (key: string, ...rest: [never?, never?]) => {
      if (key.startsWith(chunksPrefix("stream-1")) && !held.release) {
        await new Promise<void>((resolve) => {
          held.release = resolve;
        });
      }
      return inner.get(key, ...rest);
    },
  });
  const log = await StreamLog.open(descriptor(), new Catalog(store), new ChunkStore(store, 1), {
    throughputMaxWaitMs: DEFAULT_LIMITS.throughputMaxWaitMs,
    wal: newWal(store),
    settleChunkBytes: 1,
  });
  await log.append(batch("a", "b"), at(1));
  await log.settle();
  const reading = log.read(0n, { maxRecords: 2, maxBytes: 1 << 20 });
  for (let i = 0; i < 100 && !held.release; i++) {
    await new Promise((resolve) => setImmediate(resolve));
  }
  // DeleteStream: the log closes NOT_FOUND, then the stream's chunks are reclaimed.
  log.close(streamNotFound("logs", "k"));
  await log.stopped();
  await inner.delete((await inner.list(chunksPrefix("stream-1"))).objects.map((o) => o.key));
  held.release?.();
  await assert.rejects(reading, (err: { code: number }) => err.code === status.NOT_FOUND);
});

test("chunks are reclaimed only below the trim point the state object holds", async () => {
  const inner = createMemoryStore();
  const state = { failing: false };
  const refuse = (key: string) => {
    if (state.failing && key === stateKey("stream-1")) {
      state.failing = false;
      throw new Error("503 SlowDown");
    }
  };
  const store = new Proxy(inner, {
    get(target, name) {
      if (name === "put" || name === "putIf") {
        return (key: string, ...rest: unknown[]) => {
          refuse(key);
          return Reflect.apply(Reflect.get(target, name), target, [key, ...rest]);
        };
      }
      const value = Reflect.get(target, name);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const log = await open(store, descriptor({ class: "CLASS_EXPRESS" }), {
    settleChunkBytes: 1,
  });
  const firsts = async () =>
    (await store.list(chunksPrefix("stream-1"))).objects.map((o) =>
      Number(parseChunkKey("stream-1", o.key)?.firstSeqNum),
    );
  // A chunk a record (settled as each commit lands).
  await log.append(batch("a", "b", "c", "d"), at(1));
  await log.settle();
  assert.deepEqual(await firsts(), [0, 1, 2, 3]);
  // A trim command whose state write fails: acked (it is in the log), but not yet where other
  // members read the trim point, so the chunks it trims stay for them.
  state.failing = true;
  await log.append(records(trimRecord(3n)), at(2));
  assert.equal(log.trimPoint, 3n);
  assert.equal((await new Catalog(store).getState("stream-1")).trim_seq_num, "0");
  await log.reclaim();
  assert.deepEqual(await firsts(), [0, 1, 2, 3, 4]);
  // Once a state write lands (here the next trim's), they go.
  await log.append(records(trimRecord(3n)), at(3));
  assert.equal((await new Catalog(store).getState("stream-1")).trim_seq_num, "3");
  await log.reclaim();
  assert.deepEqual(await firsts(), [3, 4, 5]);
});

test("a failed log PUT is UNAVAILABLE, never acked; its number is voided, and the next takes its seq_nums", async () => {
  const { store, state } = ambiguousPuts(logPrefix("star"));
  const log = await open(store, descriptor({ class: "CLASS_EXPRESS" }));
  await log.append(batch("a"), at(1));
  state.failing = true;
  await assert.rejects(
    log.append(batch("lost"), at(2)),
    (err: { code: number; details: string }) =>
      err.code === status.UNAVAILABLE &&
      /append outcome unknown: connection reset/.test(err.details),
  );
  assert.equal(log.tail.seqNum, 1n);
  const ack = await log.append(batch("b"), at(3));
  assert.deepEqual(range(ack), [1n, 2n]);
  // The object that landed under the failed PUT is a void now: a replay never sees "lost".
  const voided = await store.get(state.failed[0] as string);
  assert.deepEqual(decodeLogVoid(voided as Buffer), { by: "star", epoch: 0 });
  assert.deepEqual(await bodies(log), ["a", "b"]);
});

test("settling moves acked records into chunk objects and deletes the log objects they were in", async () => {
  const store = createMemoryStore();
  const wal = newWal(store);
  const log = await open(store, descriptor({ class: "CLASS_EXPRESS" }), { wal });
  await log.append(batch("a", "b"), at(1));
  await log.append(batch("c"), at(2));
  assert.equal((await logObjects(store)).length, 2);
  assert.deepEqual(log.unsettled.records, 3);
  const done = await log.settle();
  assert.deepEqual(done, { records: 3, bytes: 3, chunks: 1 });
  assert.equal(await chunkCount(store), 1);
  assert.equal(log.settledEnd, 3n);
  assert.equal(log.extent.index.length, 1);
  assert.equal(log.unsettled.records, 0);
  await log.append(batch("d"), at(3));
  // Reads run on from the chunk into the record still unsettled.
  assert.deepEqual(await bodies(log), ["a", "b", "c", "d"]);
  const page = await log.read(2n, { maxRecords: 100, maxBytes: 1 << 20 });
  assert.deepEqual(
    page.map((r) => r.seqNum),
    [2n, 3n],
  );
  // Both log objects of a, b and c are deleted; d's stays.
  await wal.deleteSettled();
  assert.equal((await logObjects(store)).length, 1);
});

test("settled chunks are sized by bytes: a settle of more than a chunk's worth writes several", async () => {
  const store = createMemoryStore();
  const log = await open(store, descriptor({ class: "CLASS_EXPRESS" }), { settleChunkBytes: 4 });
  await log.append(batch("aa", "bb", "cc"), at(1));
  await log.settle();
  // 2 + 2 bytes make a chunk; "cc" is the next one.
  assert.equal(await chunkCount(store), 2);
  assert.deepEqual(await bodies(log), ["a", "b", "c"]);
});

test("a settle whose chunk PUT failed writes the same chunk again, so a listing never overlaps", async () => {
  const { store, state } = ambiguousPuts(chunksPrefix("stream-1"));
  const log = await open(store, descriptor({ class: "CLASS_EXPRESS" }));
  await log.append(batch("a"), at(1));
  state.failing = true;
  await assert.rejects(log.settle(), /connection reset/);
  await log.append(batch("b"), at(2));
  await log.settle();
  const keys = (await store.list(chunksPrefix("stream-1"))).objects.map((o) => o.key);
  // The retry wrote exactly the chunk that may have landed ("a"), then "b" after it.
  assert.equal(keys.length, 2);
  assert.equal(keys[0], state.failed[0]);
  assert.deepEqual(await bodies(log), ["a", "b"]);
});

test("a settle whose state write failed after its chunk landed writes that chunk again", async () => {
  const { store, state } = ambiguousPuts(stateKey("stream-1"));
  const d = descriptor({ class: "CLASS_EXPRESS" });
  await new Catalog(store).putStream(d);
  const wal = newWal(store);
  const log = await open(store, d, { wal });
  // A writer seq makes the state object due at the settle, after the chunk's PUT.
  await log.append(batch("a", "b"), { ...at(1), writerSeq: "w1" });
  state.failing = true;
  await assert.rejects(log.settle(), /connection reset/);
  await log.append(batch("c", "d", "e"), { ...at(2), writerSeq: "w2" });
  await log.settle();
  await log.append(batch("f"), { ...at(3), writerSeq: "w3" });
  await log.settle();
  await wal.deleteSettled();
  // One chunk per extent, none overlapping another, so a listing reads them all.
  const extents = (await store.list(chunksPrefix("stream-1"))).objects.map((o) => {
    const name = parseChunkKey("stream-1", o.key);
    return [Number(name?.firstSeqNum), name?.count];
  });
  assert.deepEqual(extents, [
    [0, 2],
    [2, 3],
    [5, 1],
  ]);
  const again = await open(store, d, { wal: newWal(store, (await replay(store)).next) });
  assert.deepEqual(await bodies(again), ["a", "b", "c", "d", "e", "f"]);
});

test("close fails what is queued and wakes waiters; later calls are refused", async () => {
  const log = await open(createMemoryStore(), descriptor({ batch_max_delay_ms: 60_000 }));
  const queued = log.append(batch("a"), at(1));
  const woken = log.waitForChange();
  log.close();
  await assert.rejects(queued, (err: { code: number }) => err.code === status.NOT_FOUND);
  await woken;
  assert.equal(log.closed, true);
  await assert.rejects(
    log.append(batch("b"), at(2)),
    (err: { code: number }) => err.code === status.NOT_FOUND,
  );
  await assert.rejects(log.fence("t"), (err: { code: number }) => err.code === status.NOT_FOUND);
});

test("a stream's first record keeps a negative stamp; later ones are clamped to the last time", async () => {
  const store = createMemoryStore();
  const d = descriptor({ class: "CLASS_EXPRESS" });
  const log = await open(store, d);
  const first = await log.append(stamped(-500n, "a"), at(10));
  assert.equal(first.start.timestampMs, -500n);
  const second = await log.append(stamped(-900n, "b"), at(11));
  assert.equal(second.start.timestampMs, -500n);
  assert.equal(await log.seqForTimestamp(-10_000n), 0n);
  // Recovered from storage (settled), the floor is the last record's time, not 0.
  await log.settle();
  const again = await open(store, d, { wal: newWal(store, 100n) });
  assert.deepEqual(again.tail, { seqNum: 2n, timestampMs: -500n });
  const third = await again.append(stamped(-600n, "c"), at(12));
  assert.equal(third.start.timestampMs, -500n);
});

// ---- the throughput cap ----

/** A stream capped at `rate` bytes a second, paced by `clock`. */
async function capped(rate: number, clock: Clock, maxWaitMs: number, more = {}) {
  const d = descriptor({
    class: "CLASS_EXPRESS",
    throughput_max_bytes_per_second: String(rate),
    ...more,
  });
  const store = createMemoryStore();
  return { store, log: await open(store, d, { throughputMaxWaitMs: maxWaitMs, clock }) };
}

/** Settles `p` into a list of what happened, in order. */
function track<T>(events: string[], name: string, p: Promise<T>): Promise<T> {
  p.then(
    () => events.push(name),
    () => events.push(`${name} refused`),
  );
  return p;
}

const bytes = (n: number, fill = "x") => batch(fill.repeat(n));

async function bodies(log: StreamLog): Promise<string[]> {
  const page = await log.read(0n, { maxRecords: 100, maxBytes: 1 << 20 });
  return page.map((r) => Buffer.from(r.body).toString().slice(0, 1));
}

test("throughput: a burst over the rate is held and committed in arrival order, none refused", async () => {
  const clock = new ManualClock();
  const { log } = await capped(1000, clock, 2000);
  const events: string[] = [];
  // 1000 tokens: a and b at once, c 200 ms later, d 600 ms later.
  const acks = ["a", "b", "c", "d"].map((name) =>
    track(events, name, log.append(bytes(400, name), at(1))),
  );
  await Promise.all(acks.slice(0, 2));
  assert.deepEqual(events, ["a", "b"]);
  assert.equal(clock.timers, 1, "one timer for the held batches, not one each");
  clock.advance(200);
  await acks[2];
  clock.advance(400);
  const all = await Promise.all(acks);
  assert.deepEqual(events, ["a", "b", "c", "d"]);
  assert.deepEqual(all.map(range), [
    [0n, 1n],
    [1n, 2n],
    [2n, 3n],
    [3n, 4n],
  ]);
  assert.deepEqual(await bodies(log), ["a", "b", "c", "d"]);
  assert.equal(clock.timers, 0);
});

test("throughput: a batch the cap would hold past the bound is refused with ThroughputExceeded, nothing stored", async () => {
  const clock = new ManualClock();
  const { log } = await capped(1000, clock, 500);
  const events: string[] = [];
  const a = track(events, "a", log.append(bytes(400, "a"), at(1)));
  const b = track(events, "b", log.append(bytes(400, "b"), at(1)));
  const c = track(events, "c", log.append(bytes(400, "c"), at(1))); // held 200 ms
  const d = track(events, "d", log.append(bytes(400, "d"), at(1))); // 600 ms: refused
  await assert.rejects(d, (err: { code: number; details: string; metadata: never }) => {
    assert.equal(err.code, status.RESOURCE_EXHAUSTED);
    assert.match(err.details, /throughput cap \(1000 bytes\/s\).*longer than 500 ms/);
    assert.deepEqual(findDetail(err.metadata, "ThroughputExceeded"), {
      limit_bytes_per_second: "1000",
      retry_after_ms: "100",
    });
    return true;
  });
  await Promise.all([a, b]);
  assert.equal(log.tail.seqNum, 2n);
  // Retried when it said, the refused batch is admitted, held behind c within the bound.
  clock.advance(100);
  const again = track(events, "d again", log.append(bytes(400, "d"), at(2)));
  clock.advance(100);
  await c;
  assert.equal(log.tail.seqNum, 3n);
  assert.deepEqual(await bodies(log), ["a", "b", "c"], "nothing of the refused batch");
  clock.advance(400);
  assert.deepEqual(range(await again), [3n, 4n]);
  assert.deepEqual(events, ["d refused", "a", "b", "c", "d again"]);
});

test("throughput: a fence behind a held batch applies after it", async () => {
  const clock = new ManualClock();
  const { log } = await capped(1000, clock, 5000, {
    producer_policy: "PRODUCER_POLICY_FENCED",
  });
  const events: string[] = [];
  const a = track(events, "a", log.append(bytes(1000, "a"), { ...at(1), fencingToken: "" }));
  // Held 500 ms; were the fence applied first, its empty token would no longer match.
  const b = track(events, "b", log.append(bytes(500, "b"), { ...at(1), fencingToken: "" }));
  const fenced = track(events, "fence", log.fence("t1"));
  const c = track(events, "c", log.append(bytes(1, "c"), { ...at(1), fencingToken: "t1" }));
  await a;
  assert.deepEqual(events, ["a"]);
  clock.advance(500);
  assert.deepEqual(range(await b), [1n, 2n]);
  assert.equal((await fenced).seqNum, 2n);
  clock.advance(1000);
  assert.deepEqual(range(await c), [2n, 3n]);
  assert.deepEqual(events, ["a", "b", "fence", "c"]);
  assert.equal(log.fencingToken, "t1");
});

test("throughput: close fails held batches and fences, and stops the timer", async () => {
  const clock = new ManualClock();
  const { log } = await capped(1000, clock, 5000);
  await log.append(bytes(1000), at(1));
  const held = log.append(bytes(10), at(1));
  const fence = log.fence("t");
  assert.equal(clock.timers, 1);
  log.close();
  await assert.rejects(held, (err: { code: number }) => err.code === status.NOT_FOUND);
  await assert.rejects(fence, (err: { code: number }) => err.code === status.NOT_FOUND);
  assert.equal(clock.timers, 0);
  assert.equal(log.tail.seqNum, 1n);
});

test("throughput: at rate 0 (unlimited) a burst goes straight through", async () => {
  const clock = new ManualClock();
  const { log } = await capped(0, clock, 0);
  const acks = await Promise.all(
    Array.from({ length: 20 }, (_, i) => log.append(bytes(100_000, String(i % 10)), at(1))),
  );
  assert.deepEqual(
    acks.map((a) => a.start.seqNum),
    Array.from({ length: 20 }, (_, i) => BigInt(i)),
  );
  assert.equal(clock.timers, 0);
});

test("throughput: a rate changed live applies to the next append, behind what is held", async () => {
  const clock = new ManualClock();
  const { log } = await capped(1000, clock, 5000);
  const events: string[] = [];
  await track(events, "a", log.append(bytes(1000, "a"), at(1)));
  const b = track(events, "b", log.append(bytes(500, "b"), at(1))); // held 500 ms
  log.descriptor = { ...log.descriptor, throughput_max_bytes_per_second: "0" };
  const c = track(events, "c", log.append(bytes(5000, "c"), at(1)));
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(events, ["a"], "c waits behind b");
  clock.advance(500);
  await Promise.all([b, c]);
  assert.deepEqual(events, ["a", "b", "c"]);
  // Nothing held: unlimited appends go at once.
  assert.deepEqual(range(await log.append(bytes(1_000_000, "d"), at(2))), [3n, 4n]);
});

// ---- batching ----

test("batching: a standard stream's batch window runs on the injected clock; its appends commit as one", async () => {
  const clock = new ManualClock();
  const store = createMemoryStore();
  const d = descriptor({ class: "CLASS_STANDARD", batch_max_delay_ms: 50 });
  const log = await open(store, d, { clock });
  const events: string[] = [];
  const acks = ["a", "b"].map((name) => track(events, name, log.append(batch(name), at(1))));
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(events, [], "held for the window");
  assert.equal(clock.timers, 1, "the window's timer is on the injected clock");
  clock.advance(50);
  assert.deepEqual((await Promise.all(acks)).map(range), [
    [0n, 1n],
    [1n, 2n],
  ]);
  assert.equal((await logObjects(store)).length, 1, "one log entry");
});

const silent = pino({ level: "silent" });

/** The star's log replayed as a restart after kill -9 replays it. */
const replay = (store: ObjectStore) => replayStored(store);

// ---- idempotent producers and closing (docs/producers.md) ----

const as = (id: string, epoch: bigint, seq: bigint) => ({ producer: { id, epoch, seq } });

/** The typed detail of a refusal, after checking its code. */
async function refused<T>(
  p: Promise<unknown>,
  code: status,
  type: Parameters<typeof findDetail>[1],
): Promise<T> {
  const err = (await p.then(
    () => assert.fail("expected a refusal"),
    (e: unknown) => e,
  )) as { code: number; metadata: Parameters<typeof findDetail>[0] };
  assert.equal(err.code, code);
  return findDetail(err.metadata, type) as T;
}

test("producers: a retry is acked with its original position and appends nothing; gaps and old epochs are refused", async () => {
  const store = createMemoryStore();
  const log = await open(store, descriptor({ class: "CLASS_EXPRESS" }));
  const first = await log.append(batch("a"), { ...at(1), ...as("p", 3n, 0n) });
  const second = await log.append(batch("b", "c"), { ...at(2), ...as("p", 3n, 1n) });
  const retry = await log.append(batch("b", "c"), { ...at(5), ...as("p", 3n, 1n) });
  assert.equal(retry.duplicate, true);
  assert.deepEqual([retry.start, retry.end], [second.start, second.end]);
  assert.deepEqual(
    (await log.append(batch("a"), { ...at(6), ...as("p", 3n, 0n) })).start,
    first.start,
  );
  assert.deepEqual(await bodies(log), ["a", "b", "c"]);
  const gap = await refused<{ expected_seq: string }>(
    log.append(batch("x"), { ...at(7), ...as("p", 3n, 5n) }),
    status.FAILED_PRECONDITION,
    "ProducerSeqGap",
  );
  assert.equal(gap.expected_seq, "2");
  const unknown = await refused<{ unknown_producer: boolean; expected_seq: string }>(
    log.append(batch("x"), { ...at(7), ...as("q", 0n, 4n) }),
    status.FAILED_PRECONDITION,
    "ProducerSeqGap",
  );
  assert.deepEqual([unknown.unknown_producer, unknown.expected_seq], [true, "0"]);
  // A new epoch starts at 0 and fences the old one, compared exactly past 2^53.
  const big = 2n ** 53n + 1n;
  await log.append(batch("d"), { ...at(8), ...as("p", big, 0n) });
  const fenced = await refused<{ current_epoch: string }>(
    log.append(batch("x"), { ...at(9), ...as("p", 2n ** 53n, 0n) }),
    status.FAILED_PRECONDITION,
    "ProducerFenced",
  );
  assert.equal(fenced.current_epoch, big.toString());
  assert.deepEqual(await bodies(log), ["a", "b", "c", "d"]);
});

test("a star whose lease may have lapsed writes no state: a resumed member puts back no older producer table", async () => {
  const store = createMemoryStore();
  let holds = true;
  const log = await open(store, descriptor({ class: "CLASS_EXPRESS" }), {
    holdsLease: () => holds,
  });
  await log.append(batch("a"), { ...at(1), ...as("p", 0n, 0n) });
  await log.settle();
  const written = await new Catalog(store).getState("stream-1");
  assert.equal(written.producers?.p?.seq, "0");
  await log.append(batch("b"), { ...at(2), ...as("p", 0n, 1n) });
  // Paused past its lease, it resumes mid-settle: its successor's state must stay.
  holds = false;
  await assert.rejects(log.settle(), (err: { code: number; message: string }) => {
    assert.equal(err.code, status.UNAVAILABLE);
    assert.match(err.message, /lease may have lapsed/);
    return true;
  });
  assert.deepEqual(await new Catalog(store).getState("stream-1"), written);
  // Holding it again (it rejoined), the same settle writes the state it kept.
  holds = true;
  await log.settle();
  assert.equal((await new Catalog(store).getState("stream-1")).producers?.p?.seq, "1");
});

test("producers: a retry in the same group commit as its original waits for it and gets its position", async () => {
  const store = createMemoryStore();
  const log = await open(store, descriptor({ class: "CLASS_EXPRESS" }));
  // The first flush takes "a" alone; the three queued meanwhile are sequenced together.
  const acks = await Promise.all([
    log.append(batch("a"), { ...at(1), ...as("p", 0n, 0n) }),
    log.append(batch("b"), { ...at(2), ...as("p", 0n, 1n) }),
    log.append(batch("b"), { ...at(2), ...as("p", 0n, 1n) }),
    log.append(batch("c"), { ...at(3), ...as("p", 0n, 2n) }),
  ]);
  assert.deepEqual(acks.map(range), [
    [0n, 1n],
    [1n, 2n],
    [1n, 2n],
    [2n, 3n],
  ]);
  assert.deepEqual(
    acks.map((a) => a.duplicate === true),
    [false, false, true, false],
  );
  assert.deepEqual(await bodies(log), ["a", "b", "c"]);
});

test("producers and close survive settling, a kill (log replay) and a reopen", async () => {
  const store = createMemoryStore();
  const d = descriptor({ class: "CLASS_EXPRESS" });
  await new Catalog(store).putStream(d);
  const wal = newWal(store);
  const log = await open(store, d, { wal });
  const settledAck = await log.append(batch("a"), { ...at(1), ...as("p", 1n, 0n) });
  await log.settle();
  const [settledObject] = await logObjects(store);
  const loggedAck = await log.append(batch("b"), { ...at(2), ...as("q", 0n, 0n) });
  await wal.deleteSettled();
  // The settle wrote the producers into the state object before the log object could go (once
  // a later one resolved: the newest stays).
  assert.equal((await logObjects(store)).includes(settledObject as string), false);
  const lastAck = await log.append(batch("c"), { ...at(3), ...as("p", 1n, 1n), close: true });
  assert.equal(lastAck.closed, true);
  assert.equal(log.sealed, true);
  // As after kill -9: b and c (and the close) are only in log objects.
  const replayed = await replay(store);
  assert.deepEqual(await logObjects(store), []);
  const again = await open(store, d, { wal: newWal(store, replayed.next) });
  assert.equal(again.sealed, true);
  for (const [ack, claim] of [
    [settledAck, as("p", 1n, 0n)],
    [loggedAck, as("q", 0n, 0n)],
    [lastAck, as("p", 1n, 1n)],
  ] as const) {
    const retry = await again.append(batch("zz"), { ...at(9), ...claim });
    assert.equal(retry.duplicate, true);
    assert.equal(retry.closed, true);
    assert.deepEqual([retry.start.seqNum, retry.end.seqNum], [ack.start.seqNum, ack.end.seqNum]);
  }
  const closed = await refused<{ tail: { seq_num: string } }>(
    again.append(batch("x"), { ...at(10), ...as("p", 1n, 2n) }),
    status.FAILED_PRECONDITION,
    "StreamClosed",
  );
  assert.equal(closed.tail.seq_num, "3");
  assert.deepEqual(await bodies(again), ["a", "b", "c"]);
});

test("a settle waits for a state write in flight: if it fails, the log keeps the producer marks", async () => {
  const inner = createMemoryStore();
  const held: { release?: () => void } = {};
  // The next state write is held on the wire, then fails.
  const store = new Proxy(inner, {
    get(target, name) {
      if (name === "putIf") {
        return async (key: string, body: Uint8Array, condition: PutCondition) => {
          if (key === stateKey("stream-1") && !held.release) {
            await new Promise<void>((resolve) => {
              held.release = resolve;
            });
            throw new Error("connection reset");
          }
          return inner.putIf(key, body, condition);
        };
      }
      const value = Reflect.get(target, name);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const d = descriptor({ class: "CLASS_EXPRESS" });
  await new Catalog(store).putStream(d);
  const wal = newWal(store);
  const log = await open(store, d, { wal });
  await log.append(batch("a"), at(1));
  const acked = await log.append(batch("b"), { ...at(2), ...as("p", 1n, 0n) });
  // A trim's state write (with p's mark) is in flight when the settle comes.
  const trim = log.trimTo(1n);
  await new Promise((resolve) => setImmediate(resolve));
  const settled = log.settle();
  await new Promise((resolve) => setImmediate(resolve));
  held.release?.();
  await assert.rejects(trim, /connection reset/);
  await settled;
  await wal.deleteSettled();
  // As after kill -9: what the log or the state object holds is all there is.
  const replayed = await replay(store);
  const again = await open(store, d, { wal: newWal(store, replayed.next) });
  const retry = await again.append(batch("b"), { ...at(3), ...as("p", 1n, 0n) });
  assert.equal(retry.duplicate, true);
  assert.deepEqual([retry.start.seqNum, retry.end.seqNum], [acked.start.seqNum, acked.end.seqNum]);
  assert.deepEqual(await bodies(again), ["a", "b"]);
});

test("replay: a failed write whose seq_nums the next commit took keeps neither records nor marks", async () => {
  const store = createMemoryStore();
  const d = descriptor({ class: "CLASS_EXPRESS" });
  await new Catalog(store).putStream(d);
  // With two log PUTs in flight: a's PUT landed though the star saw it fail, b took seq_num 0
  // again, and the star stopped before a's number was voided.
  const entry = (body: string, id: string) => ({
    streamId: d.stream_id,
    bucket: d.bucket,
    key: d.key,
    firstSeqNum: 0n,
    records: [{ headers: [], body: Buffer.from(body), timestampMs: 1n }],
    marks: {
      producers: [{ id, epoch: 0n, seq: 0n, start: 0n, end: 1n, timestampMs: 1n }],
      closed: false,
    },
  });
  await store.put(logKey("star", 0n), encodeLogObject([entry("a", "p")]));
  await store.put(logKey("star", 1n), encodeLogObject([entry("b", "q")]));
  const replayed = await replay(store);
  const again = await open(store, d, { wal: newWal(store, replayed.next) });
  assert.deepEqual(await bodies(again), ["b"]);
  const q = await again.append(batch("b"), { ...at(2), ...as("q", 0n, 0n) });
  assert.equal(q.duplicate, true);
  // p's batch is not in the stream: its retry is appended, not answered with b's position.
  const p = await again.append(batch("a"), { ...at(3), ...as("p", 0n, 0n) });
  assert.equal(p.duplicate, undefined);
  assert.deepEqual(await bodies(again), ["b", "a"]);
});

test("close with no records: after the batches before it, idempotent, durable, and wakes waiters", async () => {
  const store = createMemoryStore();
  const d = descriptor({ class: "CLASS_EXPRESS" });
  const log = await open(store, d);
  const waiting = log.waitForChange();
  const [ack, closed] = await Promise.all([log.append(batch("a"), at(1)), log.seal()]);
  await waiting;
  assert.deepEqual(range(ack), [0n, 1n]);
  assert.deepEqual([closed.tail.seqNum, closed.closed], [1n, true]);
  assert.deepEqual((await log.seal()).tail.seqNum, 1n);
  await refused(log.append(batch("x"), at(2)), status.FAILED_PRECONDITION, "StreamClosed");
  assert.equal((await open(store, d)).sealed, true);
});

test("producers past the cap wait for one to idle past the TTL; the TTL forgets at the next state write", async () => {
  const store = createMemoryStore();
  const clock = new ManualClock();
  const log = await open(store, descriptor({ class: "CLASS_EXPRESS" }), {
    clock,
    producers: { ttlMs: 1000, maxPerStream: 1 },
  });
  await log.append(batch("a"), { ...at(1), ...as("p", 0n, 0n) });
  const err = (await log.append(batch("b"), { ...at(2), ...as("q", 0n, 0n) }).catch((e) => e)) as {
    code: number;
    message: string;
  };
  assert.equal(err.code, status.RESOURCE_EXHAUSTED);
  assert.match(err.message, /--max-producers-per-stream/);
  clock.advance(1001);
  await log.append(batch("b"), { ...at(3), ...as("q", 0n, 0n) });
  // p was forgotten: its late retry is refused as unknown, never appended again.
  const gap = await refused<{ unknown_producer: boolean }>(
    log.append(batch("a"), { ...at(4), ...as("p", 0n, 1n) }),
    status.FAILED_PRECONDITION,
    "ProducerSeqGap",
  );
  assert.equal(gap.unknown_producer, true);
  assert.deepEqual(await bodies(log), ["a", "b"]);
});

test("a new producer past the cap gets a closed stream's or a match miss's refusal, not a 429", async () => {
  const log = await open(createMemoryStore(), descriptor({ class: "CLASS_EXPRESS" }), {
    producers: { ttlMs: 60_000, maxPerStream: 1 },
  });
  await log.append(batch("a"), { ...at(1), ...as("p", 0n, 0n) });
  // Not a retryable 429: waiting for room would never let these land.
  const miss = (await log
    .append(batch("b"), { ...at(2), ...as("q", 0n, 0n), matchSeqNum: 0n })
    .catch((e) => e)) as { code: number; details: string };
  assert.equal(miss.code, status.FAILED_PRECONDITION);
  assert.match(miss.details, /match_seq_num/);
  await log.seal();
  await refused(
    log.append(batch("b"), { ...at(3), ...as("q", 0n, 0n) }),
    status.FAILED_PRECONDITION,
    "StreamClosed",
  );
});

test("the producer cap counts new producers sequenced in the same group commit", async () => {
  const store = createMemoryStore();
  const log = await open(store, descriptor({ class: "CLASS_EXPRESS" }), {
    producers: { ttlMs: 60_000, maxPerStream: 2 },
  });
  // "a" is flushed alone; p and q start together in the next flush, and only one fits.
  const results = await Promise.allSettled([
    log.append(batch("a"), { ...at(1), ...as("o", 0n, 0n) }),
    log.append(batch("p"), { ...at(2), ...as("p", 0n, 0n) }),
    log.append(batch("q"), { ...at(3), ...as("q", 0n, 0n) }),
  ]);
  assert.deepEqual(
    results.map((r) => r.status),
    ["fulfilled", "fulfilled", "rejected"],
  );
  assert.equal(
    ((results[2] as PromiseRejectedResult).reason as { code: number }).code,
    status.RESOURCE_EXHAUSTED,
  );
  assert.deepEqual(await bodies(log), ["a", "p"]);
});

test("close is fenced as an append is: a wrong token is refused and the stream stays open", async () => {
  const store = createMemoryStore();
  const log = await open(store, descriptor({ producer_policy: "PRODUCER_POLICY_FENCED" }));
  await log.fence("t");
  await refused(log.seal(), status.FAILED_PRECONDITION, "FencingTokenMismatch");
  await refused(log.seal("u"), status.FAILED_PRECONDITION, "FencingTokenMismatch");
  assert.equal(log.sealed, false);
  assert.equal((await log.seal("t")).closed, true);
  assert.equal(log.sealed, true);
});

test("a commit takes one batch over the limits with the small ones around it that fit", async () => {
  const store = createMemoryStore();
  const log = await open(store, descriptor({ class: "CLASS_EXPRESS", batch_max_bytes: "10" }));
  const big = "x".repeat(40);
  // The first flush takes the first big batch alone; the rest queue meanwhile.
  const acks = await Promise.all([
    log.append(batch(big), at(1)),
    log.append(batch("a"), at(2)),
    log.append(batch(big), at(3)),
    log.append(batch("b"), at(4)),
    log.append(batch(big), at(5)),
    log.append(batch("c"), at(6)),
  ]);
  assert.deepEqual(acks.map(range), [
    [0n, 1n],
    [1n, 2n],
    [2n, 3n],
    [3n, 4n],
    [4n, 5n],
    [5n, 6n],
  ]);
  // big | a, big, b | big, c: three commits, not six.
  assert.equal((await logObjects(store)).length, 3);
});

test("delete_on_empty: an aged stream without records is vacated after what is queued; one with records is not", async () => {
  const store = createMemoryStore();
  const d = descriptor({
    class: "CLASS_EXPRESS",
    delete_on_empty_min_age_ms: "1000",
    created_at_unix_ms: "0",
  });
  const log = await open(store, d);
  assert.equal(log.emptyAndAged(999n), false, "too young");
  assert.equal(log.emptyAndAged(1000n), true, "no records ever");
  // A batch queued before the check lands, and the stream is then not empty.
  const [ack, vacated] = await Promise.all([log.append(batch("a"), at(1)), log.vacateIfEmpty()]);
  assert.deepEqual(range(ack), [0n, 1n]);
  assert.equal(vacated, false);
  assert.equal(log.emptyAndAged(5000n), false, "a record left");
  await log.trimTo(1n);
  assert.equal(log.emptyAndAged(5000n), true, "all trimmed");
  assert.equal(await log.vacateIfEmpty(), true);
  // Retryable: the delete that follows may fail, and the stream open again.
  const retry = (await log.append(batch("b"), at(2)).catch((e) => e)) as {
    code: number;
    details: string;
  };
  assert.equal(retry.code, status.UNAVAILABLE);
  assert.match(retry.details, /being deleted \(delete_on_empty\); retry/);
  // A close that names no reason (a hand-back's registry close) leaves it standing...
  log.close();
  assert.equal(log.closeReason?.code, status.UNAVAILABLE);
  // ...and once deleted, what still holds it is told so.
  log.close(streamNotFound("logs", "k"));
  await refused(log.append(batch("b"), at(2)), status.NOT_FOUND, "NotFoundDetail");
  const never = await open(createMemoryStore(), descriptor({ created_at_unix_ms: "0" }));
  assert.equal(never.emptyAndAged(10n ** 12n), false, "0 is never");
});

test("producers outlive a shutdown that settles after the log closed", async () => {
  const store = createMemoryStore();
  const d = descriptor({ class: "CLASS_EXPRESS" });
  const log = await open(store, d, {
    producers: { ttlMs: 60_000, maxPerStream: 10, budget: new ProducerBudget(1 << 20) },
  });
  const ack = await log.append(batch("a"), { ...at(1), ...as("p", 0n, 0n) });
  // A star shutting down closes its logs, and may still finish a settle.
  log.close(unavailable("the star is shutting down"));
  await log.settle();
  const again = await open(store, d);
  const retry = await again.append(batch("a"), { ...at(2), ...as("p", 0n, 0n) });
  assert.equal(retry.duplicate, true);
  assert.deepEqual(retry.start, ack.start);
});

test("a stream whose open fails after its state was read gives its producers back to the budget", async () => {
  const inner = createMemoryStore();
  const d = descriptor();
  const budget = new ProducerBudget(1 << 20);
  const producers = { ttlMs: 60_000, maxPerStream: 10, budget };
  const log = await open(inner, d, { producers });
  await log.append(batch("a"), { ...at(1), ...as("p", 0n, 0n) });
  await log.settle();
  log.close(unavailable("moving"));
  assert.equal(budget.bytes, 0);
  // Its chunk listing fails (storage refusing) on every open: nothing stays counted.
  const listing = new Proxy(inner, {
    get(target, name) {
      if (name === "list" || name === "listAll") {
        return () => {
          throw new Error("503 SlowDown");
        };
      }
      const value = Reflect.get(target, name);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  for (let i = 0; i < 3; i++) {
    await assert.rejects(open(listing, d, { producers }), /SlowDown/);
  }
  assert.equal(budget.bytes, 0);
  const again = await open(inner, d, { producers });
  assert.ok(budget.bytes > 0, "the open log counts its producer");
  again.close(unavailable("moving"));
  assert.equal(budget.bytes, 0);
});

// ---- command records (docs/commands.md) ----

const fenceRecord = (token: string) => ({
  body: Buffer.from(token),
  headers: [{ name: Buffer.alloc(0), value: Buffer.from("fence") }],
});
const trimRecord = (seq: bigint) => ({
  body: trimBody(seq),
  headers: [{ name: Buffer.alloc(0), value: Buffer.from("trim") }],
});
const dataRecord = (body: string) => ({ body: Buffer.from(body), headers: [] });
const records = (...input: Parameters<typeof validateBatch>[0]) =>
  validateBatch(input, "TIMESTAMPING_MODE_CLIENT_PREFER", DEFAULT_LIMITS);

test("command records: a fence takes a seq_num, and its token holds from the next batch on, in the same commit too", async () => {
  const log = await open(createMemoryStore(), descriptor());
  const superseded: string[] = [];
  log.sessions.add({ fencingToken: "old", supersede: () => superseded.push("old") });
  log.sessions.add({ fencingToken: "t1", supersede: () => superseded.push("t1") });
  // A standard stream's window: all four are sequenced in one flush.
  const claim = log.append(records(dataRecord("a"), fenceRecord("t1")), {
    ...at(1),
    matchSeqNum: 0n,
  });
  const stale = log.append(batch("b"), { ...at(2), fencingToken: "" });
  const fresh = log.append(batch("c"), { ...at(3), fencingToken: "t1" });
  const unconditioned = log.append(batch("d"), at(4));
  assert.deepEqual(range(await claim), [0n, 2n]);
  await assert.rejects(stale, (err: { code: number }) => err.code === status.FAILED_PRECONDITION);
  assert.deepEqual(range(await fresh), [2n, 3n]);
  assert.deepEqual(range(await unconditioned), [3n, 4n]);
  assert.equal(log.fencingToken, "t1");
  assert.deepEqual(superseded, ["old"]);
  const read = await log.read(0n, { maxRecords: 10, maxBytes: 1 << 20 });
  assert.deepEqual(
    read.map((r) => [r.seqNum, Buffer.from(r.body).toString(), r.headers.length]),
    [
      [0n, "a", 0],
      [1n, "t1", 1],
      [2n, "c", 0],
      [3n, "d", 0],
    ],
  );
});

test("command records: a conditioned fence that misses appends nothing and changes no token", async () => {
  const log = await open(createMemoryStore(), descriptor({ class: "CLASS_EXPRESS" }));
  await log.append(batch("a"), at(1));
  await assert.rejects(
    log.append(records(fenceRecord("mine")), { ...at(2), matchSeqNum: 0n }),
    (err: { code: number }) => err.code === status.FAILED_PRECONDITION,
  );
  await log.fence("theirs");
  await assert.rejects(
    log.append(records(fenceRecord("mine")), { ...at(3), fencingToken: "wrong" }),
    (err: { code: number }) => err.code === status.FAILED_PRECONDITION,
  );
  assert.equal(log.fencingToken, "theirs");
  assert.deepEqual(log.tail.seqNum, 1n);
});

test("command records: a trim moves the trim point up, to at most the end of its commit", async () => {
  const inner = createMemoryStore();
  let stateWrites = 0;
  const store = new Proxy(inner, {
    get(target, name) {
      if (name === "putIf") {
        return (key: string, body: Uint8Array, condition: PutCondition) => {
          if (key === stateKey("stream-1")) stateWrites++;
          return inner.putIf(key, body, condition);
        };
      }
      const value = Reflect.get(target, name);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const log = await open(store, descriptor({ class: "CLASS_EXPRESS" }));
  await log.append(batch("a", "b", "c"), at(1));
  await log.append(records(trimRecord(2n)), at(2));
  assert.equal(log.trimPoint, 2n);
  // Where other members read it, by the time it is acked.
  assert.equal((await new Catalog(store).getState("stream-1")).trim_seq_num, "2");
  // Never down; and a trim that does not move the point writes no state before its ack.
  const writes = stateWrites;
  await log.append(records(trimRecord(1n)), at(3));
  assert.equal(log.trimPoint, 2n);
  assert.equal(stateWrites, writes);
  // Past the tail: to the end of its own commit (the trim record included).
  const ack = await log.append(records(dataRecord("d"), trimRecord(99n)), at(4));
  assert.equal(log.trimPoint, ack.end.seqNum);
});

test("command records survive settling, a kill (log replay) and a reopen; replay applies only those the state does not hold", async () => {
  const store = createMemoryStore();
  const d = descriptor({ class: "CLASS_EXPRESS" });
  await new Catalog(store).putStream(d);
  const wal = newWal(store);
  const log = await open(store, d, { wal });
  await log.append(records(fenceRecord("settled"), dataRecord("a")), at(1));
  await log.settle();
  const [settledObject] = await logObjects(store);
  // Logged only: a fence record, then a Fence verb (state object written) after it.
  await log.append(records(fenceRecord("logged"), trimRecord(1n)), {
    ...at(2),
    fencingToken: "settled",
  });
  await wal.deleteSettled();
  assert.equal((await logObjects(store)).includes(settledObject as string), false);
  await log.fence("verb");
  assert.equal(log.fencingToken, "verb");
  const replayed = await replay(store);
  assert.equal(replayed.records, 2);
  const again = await open(store, d, { wal: newWal(store, replayed.next) });
  // The Fence came after the logged fence record: replay must not take the record's token back.
  assert.equal(again.fencingToken, "verb");
  assert.equal(again.trimPoint, 1n);
  assert.deepEqual(again.tail.seqNum, 4n);

  // A fence record the state object never saw (no Fence after it) is applied by replay.
  await again.append(records(fenceRecord("only-logged")), { ...at(5), fencingToken: "verb" });
  const second = await replay(store);
  const third = await open(store, d, { wal: newWal(store, second.next) });
  assert.equal(third.fencingToken, "only-logged");
  assert.deepEqual(third.tail.seqNum, 5n);
});

test("a chain (an end_on_refusal session): after a refused batch no later one lands, queued ones included", async () => {
  const log = await open(createMemoryStore(), descriptor());
  const chain = { broken: false };
  // A standard stream's window: these are sequenced in one flush, the miss in the middle.
  const a = log.append(batch("a"), { ...at(1), matchSeqNum: 0n, chain });
  const miss = log.append(batch("b"), { ...at(2), matchSeqNum: 5n, chain });
  const after = log.append(batch("c"), { ...at(3), matchSeqNum: 1n, chain });
  const other = log.append(batch("x"), at(4));
  assert.deepEqual(range(await a), [0n, 1n]);
  await assert.rejects(miss, (err: Error) => /next seq_num is 1/.test(err.message));
  await assert.rejects(after, (err: Error) =>
    /earlier batch of this session was refused/.test(err.message),
  );
  // Another writer is not in the chain.
  assert.deepEqual(range(await other), [1n, 2n]);
  await assert.rejects(log.append(batch("d"), { ...at(5), chain }), (err: Error) =>
    /earlier batch of this session was refused/.test(err.message),
  );
  assert.deepEqual(await bodies(log), ["a", "x"]);
});

// ---- writer seqs (Durable Streams' Stream-Seq) ----

const seq = (writerSeq: string) => ({ writerSeq });

test("writer seqs: a batch lands only above the last (bytewise), in one commit too; refusals append nothing", async () => {
  const store = createMemoryStore();
  const log = await open(store, descriptor({ class: "CLASS_EXPRESS" }));
  await log.append(batch("a"), { ...at(1), ...seq("2") });
  // "10" sorts below "2" byte by byte, and a repeat is no rise: both refused, with the last.
  for (const s of ["10", "2"]) {
    const detail = await refused<{ last_writer_seq: string }>(
      log.append(batch("x"), { ...at(2), ...seq(s) }),
      status.FAILED_PRECONDITION,
      "WriterSeqRegression",
    );
    assert.equal(detail.last_writer_seq, "2");
  }
  await log.append(batch("b"), at(3));
  // Queued together: the second is judged against the first, not against what was committed.
  const [c, stale] = await Promise.allSettled([
    log.append(batch("c"), { ...at(4), ...seq("3") }),
    log.append(batch("d"), { ...at(4), ...seq("3") }),
  ]);
  assert.equal(c.status, "fulfilled");
  assert.equal(stale.status, "rejected");
  assert.deepEqual(await bodies(log), ["a", "b", "c"]);
});

test("writer seqs survive settling, a kill (log replay) and a reopen", async () => {
  const store = createMemoryStore();
  const d = descriptor({ class: "CLASS_EXPRESS" });
  await new Catalog(store).putStream(d);
  const wal = newWal(store);
  const log = await open(store, d, { wal });
  await log.append(batch("a"), { ...at(1), ...seq("b") });
  await log.settle();
  await wal.deleteSettled();
  await log.append(batch("b"), { ...at(2), ...seq("c") });
  const replayed = await replay(store);
  const again = await open(store, d, { wal: newWal(store, replayed.next) });
  await refused(
    again.append(batch("x"), { ...at(3), ...seq("c") }),
    status.FAILED_PRECONDITION,
    "WriterSeqRegression",
  );
  await again.append(batch("c"), { ...at(4), ...seq("d") });
  assert.deepEqual(await bodies(again), ["a", "b", "c"]);
});

// ---- the state object's writers (docs/fleet.md, "The state object") ----

/** A store whose conditional writes of stream-1's state object wait, while `holding`, for `release`. */
function heldStateWrites() {
  const inner = createMemoryStore();
  const gate: { holding: boolean; held?: Promise<void>; release?: () => void } = { holding: false };
  const store = new Proxy(inner, {
    get(target, name) {
      if (name === "putIf") {
        return async (key: string, body: Uint8Array, condition: PutCondition) => {
          if (gate.holding && key === stateKey("stream-1")) {
            gate.holding = false;
            await new Promise<void>((resolve) => {
              gate.release = resolve;
            });
          }
          return inner.putIf(key, body, condition);
        };
      }
      const value = Reflect.get(target, name);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { inner, store, gate };
}

test("a takeover's replay whose state write lands after the next leader's keeps the leader's", async () => {
  const { inner, store, gate } = heldStateWrites();
  const d = descriptor({ class: "CLASS_EXPRESS" });
  await new Catalog(inner).putStream(d);
  // The lost member acked p's seq 0 and stopped before it settled.
  const lost = await open(inner, d);
  await lost.append(batch("a"), { ...at(1), ...as("p", 0n, 0n) });
  // One takeover's replay stalls at its state write...
  gate.holding = true;
  const stalled = replay(store);
  while (!gate.release) await new Promise((resolve) => setImmediate(resolve));
  // ...a second takeover's lands, and the stream's next leader goes on from it.
  await replay(inner);
  const leader = await open(inner, d, { wal: newWal(inner, 1_000n) });
  await leader.append(batch("b"), { ...at(2), ...as("p", 0n, 1n) });
  await leader.fence("new-token");
  await leader.settle();
  gate.release?.();
  await stalled;
  const state = await new Catalog(inner).getState("stream-1");
  assert.equal(
    state.producers?.p?.seq,
    "1",
    "p's seq 1 stays remembered: its retry is a duplicate",
  );
  assert.equal(state.fencing_token, "new-token");
});

test("a log's state write that lost to a late one merges what that one holds and writes again", async () => {
  const store = createMemoryStore();
  const d = descriptor({ class: "CLASS_EXPRESS" });
  const log = await open(store, d);
  await log.append(batch("a", "b"), at(1));
  await log.fence("t1");
  // A lost member's write, on the wire from before, lands: an older state with a producer.
  const q = {
    epoch: "0",
    seq: "4",
    at_ms: Date.now(),
    acks: [["4", "0", "1", "1"]] as [string, string, string, string][],
  };
  const late = { ...EMPTY_STATE, producers: { q } };
  await store.put(stateKey("stream-1"), Buffer.from(JSON.stringify(late)));
  assert.equal(await log.trimTo(1n), 1n);
  const state = await new Catalog(store).getState("stream-1");
  assert.equal(state.fencing_token, "t1");
  assert.equal(state.trim_seq_num, "1");
  assert.equal(state.producers?.q?.seq, "4");
});

test("a log closed here writes no state over another member's: a trim refused, a settle's write too", async () => {
  const store = createMemoryStore();
  const d = descriptor({ class: "CLASS_EXPRESS" });
  const log = await open(store, d);
  await log.append(batch("a"), { ...at(1), ...as("p", 0n, 0n) });
  // Handed back: the rejoining member leads it and writes its state.
  log.close(unavailable("led by x now"));
  const theirs = { ...EMPTY_STATE, fencing_token: "x-token", commands_through: "1" };
  await store.put(stateKey("stream-1"), Buffer.from(JSON.stringify(theirs)));
  await assert.rejects(log.trimTo(1n), (err: { code: number }) => err.code === status.UNAVAILABLE);
  await assert.rejects(log.settle(), /another member wrote its state/);
  assert.deepEqual(await new Catalog(store).getState("stream-1"), theirs);
});

test("the retention round is due at the earliest of age retention, expires_at and the idle window from the last use here", async () => {
  const clock = new ManualClock();
  const none = await open(createMemoryStore(), descriptor(), { clock });
  assert.equal(none.retentionDueMs(), undefined);
  const fixed = await open(createMemoryStore(), descriptor({ expires_at_unix_ms: "5000000" }), {
    clock,
  });
  assert.equal(fixed.retentionDueMs(), 5_000_000n);
  const idle = await open(
    createMemoryStore(),
    descriptor({ expires_at_unix_ms: "5000000", expire_idle_ms: "60000" }),
    { clock },
  );
  assert.equal(idle.retentionDueMs(), BigInt(clock.now() + 60_000));
  clock.advance(10_000);
  idle.markUsed();
  assert.equal(idle.retentionDueMs(), BigInt(clock.now() + 60_000));
});

test("an open trims what age retention took while the stream was not open", async () => {
  const store = createMemoryStore();
  const d = descriptor({ retention_max_age_ms: "60000" });
  const log = await open(store, d);
  // Aged out already: no retention round runs here, and it stays until an open.
  await log.append(stamped(BigInt(Date.now() - 60_001), "old"), at(Date.now()));
  await log.settle();
  assert.equal(log.trimPoint, 0n);
  log.close();
  await log.stopped();
  const again = await open(store, d);
  assert.equal(again.trimPoint, 1n);
  assert.equal((await new Catalog(store).readState("stream-1")).state.trim_seq_num, "1");
});
