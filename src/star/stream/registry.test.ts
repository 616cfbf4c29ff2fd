import assert from "node:assert/strict";
import { test } from "node:test";
import { status } from "@grpc/grpc-js";
import { createMemoryStore } from "../../platform/objstore/index.ts";
import { validateBatch } from "../append/validate-batch.ts";
import { streamNotFound } from "../errors.ts";
import { newBucket, newStream } from "../lifecycle/config.ts";
import { DEFAULT_LIMITS } from "../limits.ts";
import { Catalog } from "../storage/catalog.ts";
import { ChunkStore } from "../storage/chunk-store.ts";
import { chunksPrefix, logPrefix, stateKey } from "../storage/keys.ts";
import { CommitLog } from "../wal/commit-log.ts";
import { StreamRegistry } from "./registry.ts";

/** A registry on a store whose next chunk PUT is held until released; stream-1's descriptor. */
function heldRegistry() {
  const inner = createMemoryStore();
  const gate: { held?: () => void; holding: boolean } = { holding: false };
  const store = new Proxy(inner, {
    get(target, name) {
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
  const wal = new CommitLog(store, "star", {
    commitIntervalMs: 0,
    maxObjectBytes: 1 << 20,
    maxPutsInFlight: 1,
  });
  wal.begin(0n);
  const registry = new StreamRegistry(
    new Catalog(store),
    new ChunkStore(store, 1 << 20),
    { throughputMaxWaitMs: DEFAULT_LIMITS.throughputMaxWaitMs, wal, settleChunkBytes: 1 << 20 },
    async () => {},
  );
  const d = {
    ...newStream(newBucket("logs", null, "", 0), "k", null, "", "stream-1", 0),
    class: "CLASS_EXPRESS" as const,
  };
  return { inner, gate, wal, registry, d };
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

test("a deleted stream's log writes no state object after its close, a late trim's included", async () => {
  const { inner, registry, d } = heldRegistry();
  const log = await registry.open(d);
  await log.append(one("a"), { arrivalMs: 1n });
  await registry.close(d.stream_id, streamNotFound("logs", "k"));
  // The retention round holding the log from before the close.
  await assert.rejects(log.trimTo(1n), (err: { code: number }) => err.code === status.NOT_FOUND);
  assert.equal(await inner.get(stateKey("stream-1")), undefined);
});
