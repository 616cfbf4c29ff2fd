import assert from "node:assert/strict";
import { test } from "node:test";
import { createMemoryStore } from "../../platform/objstore/index.ts";
import { validateBatch } from "../append/validate-batch.ts";
import { newBucket, newStream } from "../lifecycle/config.ts";
import { DEFAULT_LIMITS } from "../limits.ts";
import { Catalog } from "../storage/catalog.ts";
import { ChunkStore } from "../storage/chunk-store.ts";
import { startedWal } from "../wal/started-wal.test-helper.ts";
import { FollowerView } from "./follower-view.ts";
import { StreamLog } from "./stream-log.ts";

test("a listing asked for after a chunk landed sees it, though one in flight began before", async () => {
  const inner = createMemoryStore();
  const held: { release?: () => void; holding: boolean } = { holding: false };
  // The view's store: its next listing waits until released, having listed what was there.
  const store = new Proxy(inner, {
    get(target, name) {
      if (name === "listAll") {
        return async function* (...args: Parameters<typeof inner.listAll>) {
          const listed = [];
          for await (const object of inner.listAll(...args)) listed.push(object);
          if (held.holding) {
            held.holding = false;
            await new Promise<void>((resolve) => {
              held.release = resolve;
            });
          }
          yield* listed;
        };
      }
      const value = Reflect.get(target, name);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const d = {
    ...newStream(newBucket("b", null, "", 0), "k", null, "", "s-1", 0),
    class: "CLASS_EXPRESS" as const,
  };
  const wal = startedWal(inner, "leader");
  const leader = await StreamLog.open(d, new Catalog(inner), new ChunkStore(inner, 1 << 20), {
    throughputMaxWaitMs: DEFAULT_LIMITS.throughputMaxWaitMs,
    wal,
    settleChunkBytes: 1 << 20,
  });
  const one = validateBatch(
    [{ body: Buffer.from("a"), headers: [] }],
    d.timestamping_mode,
    DEFAULT_LIMITS,
  );
  await leader.append(one, { arrivalMs: 1n });
  const view = new FollowerView("s-1", new ChunkStore(store, 1 << 20), new Catalog(store));
  // Another read's listing begins, and lists nothing: the record is not settled yet.
  held.holding = true;
  const earlier = view.refresh();
  while (!held.release) await new Promise((resolve) => setImmediate(resolve));
  // The leader settles its record into a chunk (and would delete its log).
  await leader.settle();
  const mine = view.refreshFromNow();
  held.release();
  await Promise.all([earlier, mine]);
  assert.equal(view.listedEnd.seqNum, 1n);
});
