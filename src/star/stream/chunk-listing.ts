// A stream's chunk directory from an object listing alone (chunk keys name their extent). The
// leader lists once when it recovers a stream; a follower lists again from the last key it took.
import type { ObjectStore } from "../../platform/objstore/index.ts";
import { chunksPrefix, parseChunkKey } from "../storage/keys.ts";
import type { ChunkIndex } from "./chunk-index.ts";

/**
 * Adds the listed chunks after `startAfter` that continue `index`, and returns the key of the
 * last chunk it took (`startAfter` when none). A chunk that starts below the index's end was
 * reclaimed late or duplicated by an ambiguous write and is passed over. A gap restarts the index
 * at the chunk after it: chunks go missing only when a trim reclaims them (the leader writes
 * without gaps and never reclaims its newest chunk), so all before a gap is below the trim point,
 * and stopping there would end the stream at a stale tail.
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
    if (last && name.firstSeqNum !== last.firstSeqNum + BigInt(last.count)) index.clear();
    index.push({ ...name, objectKey: obj.key, size: obj.size });
    lastKey = obj.key;
  }
  return lastKey;
}
