// StreamLog, the group-commit and fencing state machine, over the in-memory object store:
// sequencing, group commit (one flush in flight), match and fencing refusals in order, Fence
// after the batches queued before it, recovery on reopen, an ambiguous write, and close.
import assert from "node:assert/strict";
import { test } from "node:test";
import { status } from "@grpc/grpc-js";
import type { Stream__Output } from "../../gen/nova/v1/Stream.ts";
import { createMemoryStore, type ObjectStore } from "../../platform/objstore/index.ts";
import { validateBatch } from "../append/validate-batch.ts";
import { newBucket, newStream } from "../lifecycle/config.ts";
import { DEFAULT_LIMITS } from "../limits.ts";
import { Catalog } from "../storage/catalog.ts";
import { ChunkStore } from "../storage/chunk-store.ts";
import { chunksPrefix } from "../storage/keys.ts";
import { type AppendAck, StreamLog } from "./stream-log.ts";

function descriptor(overrides: Partial<Stream__Output> = {}): Stream__Output {
  const bucket = newBucket("logs", null, "", 0);
  return { ...newStream(bucket, "k", null, "", "stream-1", 0), ...overrides };
}

async function open(store: ObjectStore, d: Stream__Output = descriptor()): Promise<StreamLog> {
  return StreamLog.open(d, new Catalog(store), new ChunkStore(store, 1 << 20));
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

test("appends get contiguous seq_nums in order; those queued during a flush commit as one chunk", async () => {
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
  // The first flush took the first batch alone; the three queued meanwhile went in one chunk.
  assert.equal(await chunkCount(store), 2);
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

test("a reopened stream recovers its tail, last timestamp, trim point and fencing token", async () => {
  const store = createMemoryStore();
  const d = descriptor({ class: "CLASS_EXPRESS" });
  const log = await open(store, d);
  await log.append(batch("a", "b"), at(7));
  await log.append(batch("c"), at(9));
  await log.fence("tok");
  assert.equal(await log.trimTo(1n), 1n);
  const again = await open(store, d);
  assert.deepEqual(again.tail, { seqNum: 3n, timestampMs: 9n });
  assert.equal(again.trimPoint, 1n);
  assert.equal(again.fencingToken, "tok");
  const ack = await again.append(batch("d"), { ...at(10), matchSeqNum: 3n });
  assert.deepEqual(range(ack), [3n, 4n]);
});

test("the trim point moves up only, and never past the tail", async () => {
  const log = await open(createMemoryStore(), descriptor({ class: "CLASS_EXPRESS" }));
  await log.append(batch("a", "b", "c"), at(1));
  assert.equal(await log.trimTo(2n), 2n);
  assert.equal(await log.trimTo(1n), 2n);
  assert.equal(await log.trimTo(99n), 3n);
});

test("a failed chunk write is UNAVAILABLE with an unknown outcome; the next append re-lists and goes on", async () => {
  const inner = createMemoryStore();
  let failNext = false;
  const put = async (key: string, body: Uint8Array) => {
    if (failNext && key.startsWith(chunksPrefix("stream-1"))) {
      failNext = false;
      throw new Error("connection reset");
    }
    return inner.put(key, body);
  };
  const store = new Proxy(inner, {
    get(target, name) {
      if (name === "put") return put;
      const value = Reflect.get(target, name);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const log = await open(store, descriptor({ class: "CLASS_EXPRESS" }));
  await log.append(batch("a"), at(1));
  failNext = true;
  await assert.rejects(
    log.append(batch("lost"), at(2)),
    (err: { code: number; details: string }) =>
      err.code === status.UNAVAILABLE &&
      /append outcome unknown: connection reset/.test(err.details),
  );
  const ack = await log.append(batch("b"), at(3));
  assert.deepEqual(range(ack), [1n, 2n]);
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
  // Recovered from storage, the floor is the last record's time, not 0.
  const again = await open(store, d);
  assert.deepEqual(again.tail, { seqNum: 2n, timestampMs: -500n });
  const third = await again.append(stamped(-600n, "c"), at(12));
  assert.equal(third.start.timestampMs, -500n);
});
