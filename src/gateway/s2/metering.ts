// S2's metered size of a record, the unit of its `bytes` read bound, its batch limit and the
// third part of an SSE event id: 8 bytes of overhead, 2 per header, plus every byte of the body
// and of each header's name and value.

export interface MeteredRecord {
  body: Uint8Array;
  headers: readonly { name: Uint8Array; value: Uint8Array }[];
}

export function meteredBytes(record: MeteredRecord): number {
  let n = 8 + 2 * record.headers.length + record.body.length;
  for (const h of record.headers) n += h.name.length + h.value.length;
  return n;
}

/** S2's caps on one append batch: at most 1000 records and 1 MiB metered. */
export const S2_MAX_BATCH_RECORDS = 1000;
export const S2_MAX_BATCH_METERED_BYTES = 1024 * 1024;
