// A stream's chunk directory from an object listing alone (chunk keys name their extent). The
// leader lists once when it recovers a stream; a follower lists again from the last key it took.
import type { ObjectStore } from "../../platform/objstore/index.ts";
import { chunksPrefix, parseChunkKey } from "../storage/keys.ts";
import type { ChunkIndex, ChunkMeta } from "./chunk-index.ts";

const endOf = (c: ChunkMeta) => c.firstSeqNum + BigInt(c.count);

/**
 * Adds the listed chunks after `startAfter` that continue `index`, and returns the last key
 * listed (`startAfter` when none). A chunk inside the index's extent (an ambiguous write's
 * second copy, a late reclaim) is passed over. A gap, or a chunk reaching past the index's end
 * from inside it, makes the index the contiguous run that reaches furthest over a listing of all
 * the stream's chunks (`contiguousRun`).
 */
export async function extendFromListing(
  store: ObjectStore,
  streamId: string,
  index: ChunkIndex,
  startAfter?: string,
): Promise<string | undefined> {
  const listed = await listChunks(store, streamId, startAfter);
  for (const c of listed) {
    const last = index.last();
    if (!last || c.firstSeqNum === endOf(last)) index.push(c);
    else if (c.firstSeqNum > endOf(last) || endOf(c) > endOf(last)) {
      const all = startAfter === undefined ? listed : await listChunks(store, streamId);
      index.clear();
      for (const run of contiguousRun(all)) index.push(run);
      return all.at(-1)?.objectKey ?? startAfter;
    }
  }
  return listed.at(-1)?.objectKey ?? startAfter;
}

async function listChunks(
  store: ObjectStore,
  streamId: string,
  startAfter?: string,
): Promise<ChunkMeta[]> {
  const out: ChunkMeta[] = [];
  for await (const obj of store.listAll(chunksPrefix(streamId), { startAfter })) {
    const name = parseChunkKey(streamId, obj.key);
    if (name) out.push({ ...name, objectKey: obj.key, size: obj.size });
  }
  return out;
}

/**
 * Of chunks in key order (first seq_num ascending), the contiguous run that reaches the highest
 * seq_num, and of those the one that starts lowest. Every chunk holds the records of its extent
 * (a chunk is written only with acknowledged records), so any run reads the stream right; chunks
 * go missing only when a trim reclaims them (the leader never reclaims its newest), so all below
 * a gap is below the trim point. Extents may overlap where a lost member's chunk, on the wire
 * when it was paused, landed beside its successor's (docs/fleet.md): the run then goes through
 * whichever chunks continue each other.
 */
export function contiguousRun(chunks: readonly ChunkMeta[]): ChunkMeta[] {
  /** For each chunk, the run ending with it: its lowest start and the chunk before it. */
  const runs = new Map<ChunkMeta, { start: bigint; before?: ChunkMeta }>();
  /** The chunk ending at a seq_num whose run starts lowest. */
  const endingAt = new Map<bigint, ChunkMeta>();
  let best: ChunkMeta | undefined;
  for (const c of chunks) {
    const before = endingAt.get(c.firstSeqNum);
    const start = before ? (runs.get(before)?.start as bigint) : c.firstSeqNum;
    runs.set(c, before ? { start, before } : { start });
    const end = endOf(c);
    const rival = endingAt.get(end);
    if (!rival || start < (runs.get(rival)?.start as bigint)) endingAt.set(end, c);
    if (
      !best ||
      end > endOf(best) ||
      (end === endOf(best) && start < (runs.get(best)?.start as bigint))
    ) {
      best = c;
    }
  }
  const run: ChunkMeta[] = [];
  for (let c = best; c; c = runs.get(c)?.before) run.push(c);
  return run.reverse();
}
