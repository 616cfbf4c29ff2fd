// Reading a star's log objects back from storage, in log order: for replay when the star
// starts, and for a member serving a stopped leader's unsettled records.
import { type DecodedLogEntry, decodeLogObject } from "../../contract/codec/index.ts";
import type { ObjectStore } from "../../platform/objstore/index.ts";
import { logPrefix, parseLogKey } from "../storage/keys.ts";

export interface LogObject {
  key: string;
  number: bigint;
  entries: DecodedLogEntry[];
}

/** Every log object of `starId` in order; one deleted between the listing and its read is skipped. */
export async function* readLogObjects(
  store: ObjectStore,
  starId: string,
): AsyncIterable<LogObject> {
  for await (const obj of store.listAll(logPrefix(starId))) {
    const number = parseLogKey(starId, obj.key);
    if (number === undefined) continue;
    const bytes = await store.get(obj.key);
    if (bytes === undefined) continue;
    yield { key: obj.key, number, entries: decodeLogObject(bytes) };
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
    for (const e of object.entries) if (e.streamId === streamId) out.push(e);
  }
  return out;
}
