// A star's log replayed as its start (or a takeover) replays it, on a store alone, for tests.
import pino from "pino";
import type { ObjectStore } from "../../platform/objstore/index.ts";
import { Catalog } from "../storage/catalog.ts";
import { ChunkStore } from "../storage/chunk-store.ts";
import { LogReader } from "./log-objects.ts";
import { type ReplayResult, replayLog } from "./replay.ts";

const silent = pino({ level: "silent" });

/** `inFlight`: the log PUTs the star may have had in flight; `epoch`: as a takeover gives it. */
export function replayStored(
  store: ObjectStore,
  starId = "star",
  opts: { inFlight?: number; epoch?: number } = {},
): Promise<ReplayResult> {
  return replayLog(
    store,
    new LogReader(store, opts.inFlight ?? 1, silent),
    new Catalog(store),
    new ChunkStore(store, 1 << 20),
    starId,
    1 << 20,
    silent,
    opts.epoch,
  );
}
