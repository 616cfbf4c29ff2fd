// Test support: a star's log as the stream tests use it, begun and committing at once.
import type { ObjectStore } from "../../platform/objstore/index.ts";
import { CommitLog } from "./commit-log.ts";

/** `star`'s log on `store`, commits going out without a wait, begun at `next`. */
export function startedWal(store: ObjectStore, star = "star", next = 0n): CommitLog {
  const wal = new CommitLog(store, star, {
    commitIntervalMs: 0,
    maxObjectBytes: 1 << 20,
    maxPutsInFlight: 1,
  });
  wal.begin(next);
  return wal;
}
