import assert from "node:assert/strict";
import { test } from "node:test";
import pino from "pino";
import { encodeLogVoid } from "../../contract/codec/index.ts";
import { createMemoryStore } from "../../platform/objstore/index.ts";
import { Catalog } from "../storage/catalog.ts";
import { ChunkStore } from "../storage/chunk-store.ts";
import { logKey, logPrefix } from "../storage/keys.ts";
import { LogReader } from "./log-objects.ts";
import { replayLog } from "./replay.ts";

const silent = pino({ level: "silent" });

test("a void takes its number: replay goes past it and deletes it like any log object", async () => {
  const store = createMemoryStore();
  // Numbers whose PUT failed (a full disk, a 5xx): voided, holding nothing.
  for (const n of [0n, 1n]) {
    await store.put(logKey("star", n), encodeLogVoid({ by: "star", epoch: 0 }));
  }
  const result = await replayLog(
    store,
    new LogReader(store, 1, silent),
    new Catalog(store),
    new ChunkStore(store, 1 << 20),
    "star",
    1 << 20,
    silent,
  );
  assert.equal(result.next, 2n, "the next log object takes a number no void holds");
  assert.equal((await store.list(logPrefix("star"))).objects.length, 0);
});
