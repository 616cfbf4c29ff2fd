// Reading a star's log objects back from storage, in log order: for replay when the star
// starts, and for a member serving a stopped leader's unsettled records.
import {
  CorruptionError,
  type DecodedLogEntry,
  decodeLogObject,
} from "../../contract/codec/index.ts";
import type { ObjectStore } from "../../platform/objstore/index.ts";
import { logPrefix, parseLogKey } from "../storage/keys.ts";

export interface LogObject {
  key: string;
  number: bigint;
  /** Undefined for a torn object (it does not decode): see tornToSkip. */
  entries: DecodedLogEntry[] | undefined;
  /** Why it does not decode. */
  damage?: string;
}

/**
 * Every log object of `starId` in order; one deleted between the listing and its read is
 * skipped, and one that does not decode comes without entries.
 */
export async function* readLogObjects(
  store: ObjectStore,
  starId: string,
): AsyncIterable<LogObject> {
  for await (const obj of store.listAll(logPrefix(starId))) {
    const number = parseLogKey(starId, obj.key);
    if (number === undefined) continue;
    const bytes = await store.get(obj.key);
    if (bytes === undefined) continue;
    try {
      yield { key: obj.key, number, entries: decodeLogObject(bytes) };
    } catch (err) {
      if (!(err instanceof CorruptionError)) throw err;
      yield { key: obj.key, number, entries: undefined, damage: err.message };
    }
  }
}

/** One stream's entries in a star's log objects, in log order. */
export async function streamEntries(
  store: ObjectStore,
  starId: string,
  streamId: string,
): Promise<DecodedLogEntry[]> {
  const out: DecodedLogEntry[] = [];
  for await (const object of readLogObjects(store, starId)) {
    // A torn object's appends were never acked (tornToSkip).
    for (const e of object.entries ?? []) if (e.streamId === streamId) out.push(e);
  }
  return out;
}

/**
 * The torn objects a reader may pass over: a PUT cut short by a crash (the embedded store leaves
 * an empty file) was never acked, and only the newest `inFlight` objects can have had their PUT
 * in flight at the crash (a failed PUT's object is deleted before the next PUT starts). A torn
 * object older than those is damage, and throws.
 */
export function tornToSkip(objects: readonly LogObject[], inFlight: number): LogObject[] {
  const torn = objects.filter((o) => o.entries === undefined);
  if (torn.length === 0) return [];
  // In log order, as readLogObjects yields them: the last is the newest.
  const newest = (objects.at(-1) as LogObject).number;
  for (const o of torn) {
    if (o.number <= newest - BigInt(inFlight)) {
      throw new Error(`log object ${o.key} is damaged (${o.damage}), and is not among the newest`);
    }
  }
  return torn;
}
