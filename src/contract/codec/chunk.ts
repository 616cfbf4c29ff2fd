// A chunk object: the stored records back to back (the payload), then the footer of
// chunk-footer.ts. A record's position in the chunk is its sequence number.
import {
  CHUNK_FORMAT_VERSION,
  CHUNK_TRAILER_LENGTH,
  type ChunkFooter,
  decodeFooter,
  footerLength,
  footerLengthFromTrailer,
  hex,
  MAX_U32,
  MAX_U64,
  writeFooter,
} from "./chunk-footer.ts";
import { crc32c } from "./crc32c.ts";
import { CorruptionError } from "./errors.ts";
import {
  decodeStoredRecord,
  encodedLength,
  encodeStoredRecordInto,
  type RecordHeader,
  type StoredRecord,
} from "./stored-record.ts";

export {
  CHUNK_FORMAT_VERSION,
  CHUNK_MAGIC,
  CHUNK_TRAILER_LENGTH,
  type ChunkFooter,
  decodeFooter,
  footerLengthFromTrailer,
} from "./chunk-footer.ts";

export interface ChunkRecord extends StoredRecord {
  timestampMs: bigint;
}

export interface EncodedChunk {
  bytes: Buffer;
  footerOffset: number;
  footerLength: number;
  payloadBytes: number;
  firstSeqNum: bigint;
  count: number;
  minTimestampMs: bigint;
  maxTimestampMs: bigint;
}

export interface DecodedChunkRecord {
  seqNum: bigint;
  timestampMs: bigint;
  headers: RecordHeader[];
  body: Uint8Array;
}

const MIN_I64 = -(2n ** 63n);
const MAX_I64 = 2n ** 63n - 1n;

/** Encodes one chunk object. RangeError for no records or values the format cannot hold. */
export function encodeChunk(firstSeqNum: bigint, records: ChunkRecord[]): EncodedChunk {
  const count = records.length;
  if (count === 0) throw new RangeError("chunk: no records");
  if (firstSeqNum < 0n || firstSeqNum + BigInt(count) - 1n > MAX_U64) {
    throw new RangeError(`chunk: seq_nums ${firstSeqNum} + ${count} records leave u64`);
  }
  const fLength = footerLength(count);
  if (fLength > MAX_U32) throw new RangeError(`chunk: ${count} records overflow footer_len`);
  const recordOffsets = [0];
  const timestamps: bigint[] = [];
  let payloadBytes = 0;
  let minTimestampMs = MAX_I64;
  let maxTimestampMs = MIN_I64;
  for (const r of records) {
    const t = r.timestampMs;
    if (t < MIN_I64 || t > MAX_I64) throw new RangeError(`chunk: timestamp ${t} is not an int64`);
    if (t < minTimestampMs) minTimestampMs = t;
    if (t > maxTimestampMs) maxTimestampMs = t;
    timestamps.push(t);
    const length = encodedLength(r);
    if (length > MAX_U32) throw new RangeError(`chunk: a ${length}-byte record overflows u32`);
    payloadBytes += length;
    recordOffsets.push(payloadBytes);
  }
  const bytes = Buffer.allocUnsafe(payloadBytes + fLength);
  records.forEach((r, i) => {
    encodeStoredRecordInto(r, bytes, recordOffsets[i] as number);
  });
  const footer: ChunkFooter = {
    formatVersion: CHUNK_FORMAT_VERSION,
    firstSeqNum,
    count,
    recordOffsets,
    timestamps,
    dataCrc: crc32c(bytes.subarray(0, payloadBytes)),
    payloadBytes,
  };
  writeFooter(footer, bytes, payloadBytes);
  return {
    bytes,
    footerOffset: payloadBytes,
    footerLength: fLength,
    payloadBytes,
    firstSeqNum,
    count,
    minTimestampMs,
    maxTimestampMs,
  };
}

/** Byte range inside the payload holding records [fromIndex, toIndex). */
export function payloadRange(
  footer: ChunkFooter,
  fromIndex: number,
  toIndex: number,
): { start: number; end: number } {
  if (
    !Number.isInteger(fromIndex) ||
    !Number.isInteger(toIndex) ||
    fromIndex < 0 ||
    fromIndex > toIndex ||
    toIndex > footer.count
  ) {
    throw new RangeError(`chunk: records [${fromIndex}, ${toIndex}) of ${footer.count}`);
  }
  return {
    start: footer.recordOffsets[fromIndex] as number,
    end: footer.recordOffsets[toIndex] as number,
  };
}

/** Decodes records [fromIndex, toIndex) from exactly their payload bytes. */
export function decodeChunkSlice(
  footer: ChunkFooter,
  slice: Uint8Array,
  fromIndex: number,
  toIndex: number,
): DecodedChunkRecord[] {
  const { start, end } = payloadRange(footer, fromIndex, toIndex);
  if (slice.length !== end - start) {
    throw new CorruptionError(
      `chunk: slice for records [${fromIndex}, ${toIndex}) is ${slice.length} bytes, not ${end - start}`,
    );
  }
  const out: DecodedChunkRecord[] = [];
  for (let i = fromIndex; i < toIndex; i++) {
    const seqNum = footer.firstSeqNum + BigInt(i);
    const recordStart = (footer.recordOffsets[i] as number) - start;
    const recordEnd = (footer.recordOffsets[i + 1] as number) - start;
    let record: StoredRecord;
    try {
      record = decodeStoredRecord(slice.subarray(recordStart, recordEnd));
    } catch (e) {
      // Name the record: the stored-record message alone does not say which one is damaged.
      if (e instanceof CorruptionError) {
        throw new CorruptionError(`chunk record ${i} (seq_num ${seqNum}): ${e.message}`);
      }
      throw e;
    }
    out.push({
      seqNum,
      timestampMs: footer.timestamps[i] as bigint,
      headers: record.headers,
      body: record.body,
    });
  }
  return out;
}

/** Checks the whole payload against the footer's DataCRC. */
export function verifyPayload(footer: ChunkFooter, payload: Uint8Array): void {
  if (payload.length !== footer.payloadBytes) {
    throw new CorruptionError(
      `chunk: payload is ${payload.length} bytes, footer says ${footer.payloadBytes}`,
    );
  }
  const crc = crc32c(payload);
  if (crc !== footer.dataCrc) {
    throw new CorruptionError(`chunk: DataCRC ${hex(footer.dataCrc)}, payload gives ${hex(crc)}`);
  }
}

/** Decodes a whole chunk object: trailer, footer, DataCRC, then every record. */
export function decodeChunk(bytes: Uint8Array): {
  footer: ChunkFooter;
  records: DecodedChunkRecord[];
} {
  if (bytes.length < CHUNK_TRAILER_LENGTH) {
    throw new CorruptionError(`chunk: ${bytes.length} bytes, shorter than the trailer`);
  }
  const fLength = footerLengthFromTrailer(bytes.subarray(bytes.length - CHUNK_TRAILER_LENGTH));
  if (fLength > bytes.length) {
    throw new CorruptionError(
      `chunk: footer_len ${fLength} exceeds the ${bytes.length}-byte object`,
    );
  }
  const footerOffset = bytes.length - fLength;
  const footer = decodeFooter(bytes.subarray(footerOffset));
  const payload = bytes.subarray(0, footerOffset);
  verifyPayload(footer, payload);
  return { footer, records: decodeChunkSlice(footer, payload, 0, footer.count) };
}
