// Bytes kept past the request that brought them, in memory of their own. A Buffer read from a
// socket, decoded from a gRPC message or taken from Node's allocation pool (Buffer.poolSize:
// 64 KiB on Node 24) is a view of a larger ArrayBuffer, and keeping the view keeps all of it: a
// 1 KiB record body kept in a ring or a cache pins 64 KiB. Whatever is kept (hub rings, shared
// encodings, unsettled records, chunk caches) is copied once per batch into one exact-size
// allocation outside the pool, and counted by the memory it holds, not by its length.

/**
 * A decoded record's objects on the JS heap (the record, its Buffer views, its header list):
 * about 200 bytes measured on Node 24, as much as a small record's bytes, so counted with them.
 */
export const RECORD_OBJECT_BYTES = 200;

/** The memory records of `contentBytes` in all hold while kept: their bytes and their objects. */
export const recordsMemory = (contentBytes: number, records: number): number =>
  contentBytes + RECORD_OBJECT_BYTES * records;

/** What a record carries in bytes: its body and its headers' names and values. */
export interface RecordBytes {
  body: Uint8Array;
  headers: { name: Uint8Array; value: Uint8Array }[];
}

/** The memory that `views` keep alive: each distinct backing ArrayBuffer, counted once. */
export function heldBytes(views: Iterable<Uint8Array>): number {
  const seen = new Set<ArrayBufferLike>();
  let held = 0;
  for (const v of views) {
    if (seen.has(v.buffer)) continue;
    seen.add(v.buffer);
    held += v.buffer.byteLength;
  }
  return held;
}

/** Every byte view a record holds. */
export function* recordViews(r: RecordBytes): Generator<Uint8Array> {
  yield r.body;
  for (const h of r.headers) {
    yield h.name;
    yield h.value;
  }
}

/**
 * The records with every body, header name and value in one allocation of exactly their total
 * size, when what they pin is more than `slack` times that; otherwise the records themselves (a
 * chunk decoded in place pins its framing too, which is worth less than a copy). Either way the
 * bytes are the same, and `held` is the memory the returned records keep alive, their objects
 * included.
 */
export function compactRecords<R extends RecordBytes>(
  records: readonly R[],
  slack = 2,
): { records: R[]; held: number } {
  let total = 0;
  const views: Uint8Array[] = [];
  for (const r of records) {
    for (const v of recordViews(r)) {
      total += v.length;
      views.push(v);
    }
  }
  const pinned = heldBytes(views);
  const objects = RECORD_OBJECT_BYTES * records.length;
  if (pinned <= slack * total) return { records: [...records], held: pinned + objects };
  const memory = Buffer.allocUnsafeSlow(total);
  let at = 0;
  const place = (v: Uint8Array): Buffer => {
    memory.set(v, at);
    const view = memory.subarray(at, at + v.length);
    at += v.length;
    return view;
  };
  const out = records.map((r) => ({
    ...r,
    body: place(r.body),
    headers: r.headers.map((h) => ({ ...h, name: place(h.name), value: place(h.value) })),
  }));
  return { records: out, held: total + objects };
}
