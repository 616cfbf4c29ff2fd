// A stream's chunk directory from an object listing alone (chunk keys name their extent). The
// leader lists once when it recovers a stream; a follower lists again from the last key it took.
import type { ObjectStore } from "../../objstore/object-store.ts";
import { chunksPrefix, parseChunkKey } from "../storage/keys.ts";
import type { ChunkIndex } from "./chunk-index.ts";

/**
 * Adds the listed chunks after `startAfter` that continue `index`, and returns the key of the
 * last chunk it took (`startAfter` when none). A chunk that starts below the index's end was
 * reclaimed late or duplicated by an ambiguous write and is passed over; a gap ends the run.
 */
export async function extendFromListing(
  store: ObjectStore,
  streamId: string,
  index: ChunkIndex,
  startAfter?: string,
): Promise<string | undefined> {
  let lastKey = startAfter;
  for await (const obj of store.listAll(chunksPrefix(streamId), { startAfter })) {
    const name = parseChunkKey(streamId, obj.key);
    if (!name) continue;
    const last = index.last();
    if (last && name.firstSeqNum < last.firstSeqNum + BigInt(last.count)) continue;
    if (last && name.firstSeqNum !== last.firstSeqNum + BigInt(last.count)) break;
    index.push({ ...name, objectKey: obj.key, size: obj.size });
    lastKey = obj.key;
  }
  return lastKey;
}
