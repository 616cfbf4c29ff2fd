import assert from "node:assert/strict";
import { test } from "node:test";
import { status } from "@grpc/grpc-js";
import { createMemoryStore } from "../../platform/objstore/index.ts";
import { validateBatch } from "../append/validate-batch.ts";
import { streamNotFound, unavailable } from "../errors.ts";
import { newBucket, newStream } from "../lifecycle/config.ts";
import { DEFAULT_LIMITS } from "../limits.ts";
import { Catalog } from "../storage/catalog.ts";
import { ChunkStore } from "../storage/chunk-store.ts";
import { chunksPrefix, logPrefix, stateKey } from "../storage/keys.ts";
import { startedWal } from "../wal/started-wal.test-helper.ts";
import { ManualClock } from "./manual-clock.test-helper.ts";
import { StreamRegistry } from "./registry.ts";
import type { StreamLog } from "./stream-log.ts";

/** A registry on a store whose next chunk PUT is held until released; stream-1's descriptor. */
function heldRegistry(clock = new ManualClock(), maxOpen = DEFAULT_LIMITS.maxOpenStreams) {
  const inner = createMemoryStore();
  const gate: {
    held?: () => void;
    holding: boolean;
    failListing?: boolean;
    /** Holds the next read of stream-1's state object until released; then it fails or not. */
    stateRead?: { reached: boolean; release: Promise<void>; fail: boolean };
  } = { holding: false };
  const store = new Proxy(inner, {
    get(target, name) {
      if (name === "getVersioned") {
        return async (key: string) => {
          const read = gate.stateRead;
          if (read && !read.reached && key === stateKey("stream-1")) {
            read.reached = true;
            await read.release;
            if (read.fail) throw new Error("503 SlowDown");
          }
          return inner.getVersioned(key);
        };
      }
      if ((name === "list" || name === "listAll") && gate.failListing) {
        gate.failListing = false;
        return () => {
          throw new Error("503 SlowDown");
        };
      }
      if (name === "put") {
        return async (key: string, body: Uint8Array) => {
          if (gate.holding && key.startsWith(chunksPrefix("stream-1"))) {
            gate.holding = false;
            await new Promise<void>((resolve) => {
              gate.held = resolve;
            });
          }
          return inner.put(key, body);
        };
      }
      const value = Reflect.get(target, name);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const wal = startedWal(store);
  const registry = new StreamRegistry(
    new Catalog(store),
    new ChunkStore(store, 1 << 20),
    {
      throughputMaxWaitMs: DEFAULT_LIMITS.throughputMaxWaitMs,
      wal,
      settleChunkBytes: 1 << 20,
      clock,
      maxOpen,
    },
    async () => {},
  );
  const d = {
    ...newStream(newBucket("logs", null, "", 0), "k", null, "", "stream-1", 0),
    class: "CLASS_EXPRESS" as const,
  };
  return { inner, gate, wal, registry, d, clock };
}

const one = (body: string) =>
  validateBatch(
    [{ body: Buffer.from(body), headers: [] }],
    "TIMESTAMPING_MODE_CLIENT_PREFER",
    DEFAULT_LIMITS,
  );

test("closing a deleted stream waits for its settle in flight: nothing lands after", async () => {
  const { inner, gate, registry, d } = heldRegistry();
  const log = await registry.open(d);
  // A writer seq: the settle writes the state object after its chunk.
  await log.append(one("a"), { arrivalMs: 1n, writerSeq: "w" });
  gate.holding = true;
  const settling = log.settle().catch(() => undefined);
  await new Promise((resolve) => setImmediate(resolve));
  let closed = false;
  const closing = registry.close(d.stream_id, streamNotFound("logs", "k")).then(() => {
    closed = true;
  });
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(closed, false, "the chunk PUT is still under way");
  gate.held?.();
  await closing;
  await settling;
  // What a reclaim lists now is all there is: the chunk landed, and no state write follows it.
  const listed = (await inner.list(chunksPrefix("stream-1"))).objects.map((o) => o.key);
  assert.equal(listed.length, 1);
  await inner.delete(listed);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual((await inner.list(chunksPrefix("stream-1"))).objects, []);
  assert.equal(await inner.get(stateKey("stream-1")), undefined);
});

test("a stream opened again while its close is under way opens after it: its log stays", async () => {
  const { inner, gate, wal, registry, d } = heldRegistry();
  const old = await registry.open(d);
  await old.append(one("a"), { arrivalMs: 1n });
  gate.holding = true;
  const settling = old.settle().catch(() => undefined);
  await new Promise((resolve) => setImmediate(resolve));
  const closing = registry.close(d.stream_id);
  await new Promise((resolve) => setImmediate(resolve));
  const reopening = registry.open(d);
  const appended = reopening.then((log) => log.append(one("b"), { arrivalMs: 2n }));
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  gate.held?.();
  await Promise.all([closing, settling]);
  const fresh = await reopening;
  assert.notEqual(fresh, old);
  assert.equal((await appended).start.seqNum, 1n, "after the record the old log settled");
  await wal.deleteSettled();
  // The reopened log's unsettled record keeps its log object.
  assert.equal(fresh.unsettled.records, 1);
  assert.equal((await inner.list(logPrefix("star"))).objects.length, 1);
});

/** Holds heldRegistry's next state read; `release` lets it go on, failing with `fail`. */
async function holdStateRead(gate: ReturnType<typeof heldRegistry>["gate"], fail: boolean) {
  let release!: () => void;
  gate.stateRead = { reached: false, release: new Promise((r) => (release = r)), fail };
  return {
    release,
    reached: async () => {
      for (let i = 0; i < 1000 && !gate.stateRead?.reached; i++) {
        await new Promise((resolve) => setImmediate(resolve));
      }
      assert.ok(gate.stateRead?.reached, "the state read was reached");
    },
  };
}

test("an open failing after a step-down and a new open leaves the new log the stream's", async () => {
  const { gate, registry, d } = heldRegistry();
  const read = await holdStateRead(gate, true);
  const first = registry.open(d);
  await read.reached();
  // The star steps down (its lease lost) while that open reads, then leads again.
  const dropping = registry.dropAll(unavailable("stepped down"));
  const second = await registry.open(d);
  read.release();
  await assert.rejects(first, /SlowDown/);
  await dropping;
  assert.equal(await registry.open(d), second, "one log of the stream, not two");
  assert.deepEqual(await registry.openLogs(), [second]);
});

test("a close outlasting a step-down and a new open leaves the new log open and its records kept", async () => {
  const { inner, gate, wal, registry, d } = heldRegistry();
  const read = await holdStateRead(gate, false);
  const first = registry.open(d);
  await read.reached();
  const closing = registry.close(d.stream_id);
  const dropping = registry.dropAll(unavailable("stepped down"));
  const second = await registry.open(d);
  await second.append(one("a"), { arrivalMs: 1n });
  read.release();
  await Promise.all([first, closing, dropping]);
  assert.equal(await registry.open(d), second);
  assert.equal((await second.append(one("b"), { arrivalMs: 2n })).start.seqNum, 1n);
  // Its unsettled records keep their log objects.
  await wal.deleteSettled();
  assert.equal(second.unsettled.records, 2);
  assert.equal((await inner.list(logPrefix("star"))).objects.length, 2);
});

test("a second close of a stream resolves only once its log stopped, as the first does", async () => {
  const { gate, registry, d } = heldRegistry();
  const log = await registry.open(d);
  await log.append(one("a"), { arrivalMs: 1n, writerSeq: "w" });
  gate.holding = true;
  const settling = log.settle().catch(() => undefined);
  await new Promise((resolve) => setImmediate(resolve));
  const ended: string[] = [];
  const first = registry.close(d.stream_id).then(() => ended.push("close"));
  const second = registry
    .deleted(d.stream_id, streamNotFound("logs", "k"))
    .then(() => ended.push("deleted"));
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
  // The settle's chunk PUT is still held: neither may have resolved.
  assert.deepEqual(ended, []);
  gate.held?.();
  await Promise.all([first, second, settling]);
  assert.deepEqual(ended.sort(), ["close", "deleted"]);
});

test("a deleted stream's log writes no state object after its close, a late trim's included", async () => {
  const { inner, registry, d } = heldRegistry();
  const log = await registry.open(d);
  await log.append(one("a"), { arrivalMs: 1n });
  await registry.close(d.stream_id, streamNotFound("logs", "k"));
  // The retention round holding the log from before the close.
  await assert.rejects(log.trimTo(1n), (err: { code: number }) => err.code === status.NOT_FOUND);
  assert.equal(await inner.get(stateKey("stream-1")), undefined);
});

const IDLE = 60_000;

test("at the bound an open closes the log quiet the longest; with none quiet it is refused", async () => {
  const { registry, d, clock } = heldRegistry(new ManualClock(), 2);
  const stream = (n: number) => ({ ...d, stream_id: `stream-${n}`, key: `k${n}` });
  const first = await registry.open(stream(1));
  clock.advance(10);
  const second = await registry.open(stream(2));
  clock.advance(10);
  // Both quiet: the first, quiet the longest, makes room.
  const third = await registry.open(stream(3));
  assert.equal(first.closeReason?.code, status.UNAVAILABLE, "closed as the idle close does");
  assert.equal(second.closeReason?.code, undefined, "the other is kept");
  assert.equal(registry.counts.open, 2);
  // Both open logs busy (records to settle): nothing to close, the open is refused, retryable.
  await second.append(one("b"), { arrivalMs: 1n });
  await third.append(one("c"), { arrivalMs: 1n });
  await assert.rejects(
    registry.open(stream(4)),
    (err: { code: number; message: string }) =>
      err.code === status.RESOURCE_EXHAUSTED &&
      /2 streams open \(at most 2, --max-open-streams\), none of them quiet; retry/.test(
        err.message,
      ),
  );
  assert.equal(registry.counts.open, 2);
  // Settled, one is quiet again: the open goes, and the stream closed first opens as it was.
  await second.settle();
  const again = await registry.open(stream(1));
  assert.equal(second.closeReason?.code, status.UNAVAILABLE);
  assert.notEqual(again, first);
  assert.equal(registry.counts.open, 2);
});

test("a log unused for the idle time closes; the next use opens it from storage as it was", async () => {
  const { registry, d, clock } = heldRegistry();
  const log = await registry.open(d);
  await log.append(one("a"), { arrivalMs: 1n, writerSeq: "w1" });
  await log.settle();
  clock.advance(IDLE - 1);
  await registry.closeIdle(IDLE);
  assert.equal(registry.counts.open, 1, "not idle long enough");
  clock.advance(1);
  await registry.closeIdle(IDLE);
  assert.deepEqual(registry.counts, { open: 0, dormant: 0, closedIdle: 1 });
  assert.equal(log.closeReason?.code, status.UNAVAILABLE, "a holder left with it may retry");
  const again = await registry.open(d);
  assert.notEqual(again, log);
  assert.equal(again.tail.seqNum, 1n);
  assert.deepEqual(
    (await again.read(0n, { maxRecords: 10, maxBytes: 1 << 20 })).map((r) => r.body.toString()),
    ["a"],
  );
  // What the state object holds came back too: a writer seq at or below the last is refused.
  await assert.rejects(again.append(one("b"), { arrivalMs: 2n, writerSeq: "w1" }));
  assert.equal((await again.append(one("b"), { arrivalMs: 2n, writerSeq: "w2" })).start.seqNum, 1n);
});

test("a use restarts the idle time", async () => {
  const { registry, d, clock } = heldRegistry();
  await registry.open(d);
  clock.advance(IDLE - 1);
  await registry.open(d);
  clock.advance(IDLE - 1);
  await registry.closeIdle(IDLE);
  assert.equal(registry.counts.open, 1);
});

test("a log with work under way or waiting stays open however long unused", async (t) => {
  const cases: [string, (log: StreamLog) => (() => void) | undefined][] = [
    ["records not yet settled", () => undefined],
    [
      "a waiter (a Subscribe at the tail)",
      (log) => {
        const stop = new AbortController();
        void log.waitForChange(stop.signal);
        return () => stop.abort();
      },
    ],
    ["a holder (a Subscribe sending a page)", (log) => log.hold()],
  ];
  for (const [name, busy] of cases) {
    await t.test(name, async () => {
      const { registry, d, clock } = heldRegistry();
      const log = await registry.open(d);
      await log.append(one("a"), { arrivalMs: 1n });
      const done = busy(log);
      if (done) await log.settle();
      clock.advance(10 * IDLE);
      await registry.closeIdle(IDLE);
      assert.equal(registry.counts.open, 1);
      if (done) done();
      else await log.settle();
      // Idle from the end of the hold: from now.
      if (name.includes("holder")) {
        await registry.closeIdle(IDLE);
        assert.equal(registry.counts.open, 1);
        clock.advance(IDLE);
      }
      await registry.closeIdle(IDLE);
      assert.equal(registry.counts.open, 0);
    });
  }
});

test("a log whose settle is under way closes idle only once it landed", async () => {
  const { inner, gate, registry, d, clock } = heldRegistry();
  const log = await registry.open(d);
  await log.append(one("a"), { arrivalMs: 1n });
  gate.holding = true;
  const settling = log.settle();
  clock.advance(10 * IDLE);
  await registry.closeIdle(IDLE);
  assert.equal(registry.counts.open, 1);
  gate.held?.();
  await settling;
  await registry.closeIdle(IDLE);
  assert.equal(registry.counts.open, 0);
  assert.equal((await inner.list(chunksPrefix("stream-1"))).objects.length, 1);
});

test("a stream closed idle with records to age out is due when its oldest chunk is", async () => {
  const { registry, d, clock } = heldRegistry();
  const aging = { ...d, retention_max_age_ms: "1000" };
  const log = await registry.open(aging);
  await log.append(one("a"), { arrivalMs: 1n });
  const ts = log.tail.timestampMs;
  await log.settle();
  clock.advance(IDLE);
  await registry.closeIdle(IDLE);
  assert.deepEqual(registry.counts, { open: 0, dormant: 1, closedIdle: 1 });
  assert.deepEqual(registry.dueStreams(ts + 1000n), []);
  assert.deepEqual(
    registry.dueStreams(ts + 1001n).map((s) => s.stream_id),
    ["stream-1"],
  );
  // Opening it is what takes it off the list.
  await registry.open(aging);
  assert.deepEqual(registry.counts, { open: 1, dormant: 0, closedIdle: 1 });
});

test("a stream due whose open fails stays due, and leaves the list once it opens", async () => {
  const { registry, d, clock, gate } = heldRegistry();
  const aging = { ...d, retention_max_age_ms: "1000" };
  const log = await registry.open(aging);
  await log.append(one("a"), { arrivalMs: 1n });
  await log.settle();
  clock.advance(IDLE);
  await registry.closeIdle(IDLE);
  const later = log.tail.timestampMs + 10_000n;
  assert.equal(registry.dueStreams(later).length, 1);
  gate.failListing = true;
  await assert.rejects(registry.open(aging), /SlowDown/);
  assert.deepEqual(
    registry.dueStreams(later).map((s) => s.stream_id),
    ["stream-1"],
    "due again for the next round",
  );
  await registry.open(aging);
  assert.deepEqual(registry.dueStreams(later), []);
  assert.deepEqual(registry.counts, { open: 1, dormant: 0, closedIdle: 1 });
});

test("an empty stream closed idle is due at its delete_on_empty age; a deleted one is not", async () => {
  const { registry, d, clock } = heldRegistry();
  const deleting = { ...d, delete_on_empty_min_age_ms: "5000", created_at_unix_ms: "100" };
  await registry.open(deleting);
  clock.advance(IDLE);
  await registry.closeIdle(IDLE);
  assert.deepEqual(registry.dueStreams(5099n), []);
  assert.equal(registry.dueStreams(5100n).length, 1);
  await registry.close(d.stream_id, streamNotFound("logs", "k"));
  assert.deepEqual(registry.dueStreams(5100n), []);
});

test("a new stream whose retention may have work is due at once; one with none is not", async () => {
  const { registry, d } = heldRegistry();
  registry.created({ ...d, stream_id: "plain" });
  registry.created({ ...d, stream_id: "aging", retention_max_age_ms: "60000" });
  registry.created({ ...d, stream_id: "deleting", delete_on_empty_min_age_ms: "1" });
  assert.deepEqual(
    registry.dueStreams(0n).map((s) => s.stream_id),
    ["aging", "deleting"],
  );
  await registry.open({ ...d, stream_id: "deleting", delete_on_empty_min_age_ms: "1" });
  assert.deepEqual(
    registry.dueStreams(0n).map((s) => s.stream_id),
    ["aging"],
    "open, it is the round's like any open stream",
  );
});

test("a stream closed idle with no retention to come is not remembered", async () => {
  const { registry, d, clock } = heldRegistry();
  const log = await registry.open({ ...d, retention_max_bytes: "1" });
  await log.append(one("a"), { arrivalMs: 1n });
  await log.settle();
  clock.advance(IDLE);
  await registry.closeIdle(IDLE);
  assert.deepEqual(registry.counts, { open: 0, dormant: 0, closedIdle: 1 });
});

test("a stream closed idle that is reconfigured opens with its new config", async () => {
  const { registry, d, clock } = heldRegistry();
  const log = await registry.open({ ...d, retention_max_age_ms: "1000000" });
  await log.append(one("a"), { arrivalMs: 1n });
  await log.settle();
  clock.advance(IDLE);
  await registry.closeIdle(IDLE);
  assert.equal(registry.counts.dormant, 1);
  await registry.reconfigured({ ...d, retention_max_age_ms: "1000" });
  assert.deepEqual(registry.counts, { open: 1, dormant: 0, closedIdle: 1 });
  const reopened = await registry.peek(d.stream_id);
  assert.equal(reopened?.descriptor.retention_max_age_ms, "1000");
});

test("a hold that meets a log closed idle under it opens the stream again", async () => {
  const { registry, d, clock } = heldRegistry();
  const first = await registry.open(d);
  const holding = registry.hold(d);
  // Before the hold's continuation runs: the round closes the log it was given.
  clock.advance(IDLE);
  const closing = registry.closeIdle(IDLE);
  const { log, release } = await holding;
  await closing;
  assert.equal(first.closed, true);
  assert.notEqual(log, first);
  assert.equal(log.closed, false);
  clock.advance(10 * IDLE);
  await registry.closeIdle(IDLE);
  assert.equal(log.closed, false, "held");
  release();
  clock.advance(IDLE);
  await registry.closeIdle(IDLE);
  assert.equal(log.closed, true);
});

test("a stream closed idle with no retention, reconfigured to one, opens for it", async () => {
  const { registry, d, clock } = heldRegistry();
  await registry.open(d);
  clock.advance(IDLE);
  await registry.closeIdle(IDLE);
  assert.deepEqual(registry.counts, { open: 0, dormant: 0, closedIdle: 1 });
  await registry.reconfigured({ ...d, retention_max_bytes: "10" });
  assert.equal(registry.counts.open, 0, "size retention has work only with an append");
  await registry.reconfigured({ ...d, retention_max_age_ms: "1000" });
  assert.equal(registry.counts.open, 1);
});
