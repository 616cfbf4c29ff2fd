import assert from "node:assert/strict";
import { test } from "node:test";
import pino from "pino";
import { KeyTurns } from "../../platform/concurrency/key-turns.ts";
import { createMemoryStore } from "../../platform/objstore/index.ts";
import { validateBatch } from "../append/validate-batch.ts";
import type { StarContext } from "../context.ts";
import { DEFAULT_LIMITS } from "../limits.ts";
import { Catalog } from "../storage/catalog.ts";
import { ChunkStore } from "../storage/chunk-store.ts";
import { StreamRegistry } from "../stream/registry.ts";
import { CommitLog } from "../wal/commit-log.ts";
import { newBucket, newStream } from "./config.ts";
import { StreamUses } from "./expiry.ts";
import { deleteIfEmpty, reconfigureStreamVerb } from "./streams.ts";

test("delete_on_empty and a reconfigure under way: the stream ends deleted, not back alive", async () => {
  const inner = createMemoryStore();
  // The next live descriptor's PUT (the reconfigure's) is held until released.
  const held: { holding: boolean; release?: () => void } = { holding: false };
  const store = new Proxy(inner, {
    get(target, name) {
      if (name === "put") {
        return async (key: string, body: Uint8Array) => {
          const live = JSON.parse(Buffer.from(body).toString()).deleted_at_unix_ms === "0";
          if (held.holding && key.startsWith("meta/streams/") && live) {
            held.holding = false;
            await new Promise<void>((resolve) => {
              held.release = resolve;
            });
          }
          return inner.put(key, body);
        };
      }
      const value = Reflect.get(target, name);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const catalog = new Catalog(store);
  const chunks = new ChunkStore(store, 1 << 20);
  const wal = new CommitLog(store, "star", {
    commitIntervalMs: 0,
    maxObjectBytes: 1 << 20,
    maxPutsInFlight: 1,
  });
  wal.begin(0n);
  const registry = new StreamRegistry(
    catalog,
    chunks,
    { throughputMaxWaitMs: DEFAULT_LIMITS.throughputMaxWaitMs, wal, settleChunkBytes: 1 << 20 },
    async () => {},
  );
  const self = { name: "star", address: "127.0.0.1:1" };
  const background: Promise<void>[] = [];
  const ctx = {
    id: "star",
    catalog,
    chunks,
    registry,
    uses: new StreamUses(0),
    now: Date.now,
    locks: new KeyTurns(),
    fleet: { self, leaderOf: () => self, leads: () => true },
    lease: undefined,
    limits: DEFAULT_LIMITS,
    log: pino({ level: "silent" }),
    background: (_what: string, task: () => Promise<void>) => background.push(task()),
  } as unknown as StarContext;
  await catalog.putBucket(newBucket("logs", null, "", 0));
  const d = {
    ...newStream(newBucket("logs", null, "", 0), "k", null, "", "stream-1", 0),
    class: "CLASS_EXPRESS" as const,
    delete_on_empty_min_age_ms: "1",
  };
  await catalog.putStream(d);
  const log = await registry.open(d);
  const one = validateBatch(
    [{ body: Buffer.from("x"), headers: [] }],
    "TIMESTAMPING_MODE_CLIENT_PREFER",
    DEFAULT_LIMITS,
  );
  await log.append(one, { arrivalMs: 1n });
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
  await Promise.all(background);
  const now = await catalog.getStream("logs", "k", { fresh: true });
  assert.notEqual(now?.deleted_at_unix_ms, "0", "the tombstone stands");
  assert.equal(now?.retention_max_age_ms, "60000", "made from the reconfigured descriptor");
});
