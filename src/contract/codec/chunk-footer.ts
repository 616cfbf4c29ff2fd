// The chunk footer (directory), byte for byte in docs/storage-layout.md. Little-endian.
//
//   0        magic "NVCK"          4
//   4        format_version = 1    1
//   5        first_seq_num  u64    8
//   13       count          u32    4
//   17       payload_bytes  u64    8
//   25       record_len     u32 × count
//   25+4n    timestamp_ms   i64 × count
//   25+12n   data_crc       u32    4   CRC32C of the payload
//   29+12n   footer_len     u32    4 ┐
//   33+12n   footer_crc     u32    4 │ trailer: the object's last 12 bytes
//   37+12n   magic "NVCK"          4 ┘
import { crc32c } from "./crc32c.ts";
import { CorruptionError } from "./errors.ts";

/** "NVCK" read as a little-endian u32: bytes 4e 56 43 4b. */
export const CHUNK_MAGIC = 0x4b43564e;
export const CHUNK_FORMAT_VERSION = 1;
/** footer_len, footer_crc, magic. */
export const CHUNK_TRAILER_LENGTH = 12;

const HEAD_LENGTH = 25;
const PER_RECORD = 12;
/** Head, data_crc and trailer: the footer without its per-record tables. */
const FIXED_LENGTH = HEAD_LENGTH + 4 + CHUNK_TRAILER_LENGTH;
export const MAX_U32 = 0xffffffff;
export const MAX_U64 = 2n ** 64n - 1n;

export interface ChunkFooter {
  formatVersion: number;
  firstSeqNum: bigint;
  count: number;
  /** count+1 prefix offsets into the payload: record i is [recordOffsets[i], recordOffsets[i+1]). */
  recordOffsets: number[];
  timestamps: bigint[];
  dataCrc: number;
  payloadBytes: number;
}

export function footerLength(count: number): number {
  return FIXED_LENGTH + PER_RECORD * count;
}

function viewOf(b: Uint8Array): DataView {
  return new DataView(b.buffer, b.byteOffset, b.byteLength);
}

/** Writes `f` at `out[offset]`, exactly footerLength(f.count) bytes. The caller sizes `out`. */
export function writeFooter(f: ChunkFooter, out: Uint8Array, offset: number): void {
  const n = f.count;
  const len = footerLength(n);
  const v = new DataView(out.buffer, out.byteOffset + offset, len);
  v.setUint32(0, CHUNK_MAGIC, true);
  v.setUint8(4, f.formatVersion);
  v.setBigUint64(5, f.firstSeqNum, true);
  v.setUint32(13, n, true);
  v.setBigUint64(17, BigInt(f.payloadBytes), true);
  for (let i = 0; i < n; i++) {
    const start = f.recordOffsets[i] as number;
    v.setUint32(HEAD_LENGTH + 4 * i, (f.recordOffsets[i + 1] as number) - start, true);
    v.setBigInt64(HEAD_LENGTH + 4 * n + 8 * i, f.timestamps[i] as bigint, true);
  }
  v.setUint32(len - 16, f.dataCrc, true);
  v.setUint32(len - 12, len, true);
  v.setUint32(len - 8, crc32c(out.subarray(offset, offset + len - 8)), true);
  v.setUint32(len - 4, CHUNK_MAGIC, true);
}

function corrupt(what: string): CorruptionError {
  return new CorruptionError(`chunk footer: ${what}`);
}

/** The footer's total length, from the object's last CHUNK_TRAILER_LENGTH bytes. */
export function footerLengthFromTrailer(trailer: Uint8Array): number {
  if (trailer.length !== CHUNK_TRAILER_LENGTH) {
    throw corrupt(`trailer is ${trailer.length} bytes, not ${CHUNK_TRAILER_LENGTH}`);
  }
  const v = viewOf(trailer);
  if (v.getUint32(8, true) !== CHUNK_MAGIC) throw corrupt("trailer does not end with the magic");
  const len = v.getUint32(0, true);
  if (len < footerLength(1) || (len - FIXED_LENGTH) % PER_RECORD !== 0) {
    throw corrupt(`trailer footer_len ${len} is not ${FIXED_LENGTH} + 12 × count, count ≥ 1`);
  }
  return len;
}

/** Decodes and checks the footer: exactly the bytes [footer_off, footer_off + footer_len). */
export function decodeFooter(footer: Uint8Array): ChunkFooter {
  const len = footer.length;
  if (len < CHUNK_TRAILER_LENGTH) throw corrupt(`${len} bytes, shorter than the trailer`);
  const declared = footerLengthFromTrailer(footer.subarray(len - CHUNK_TRAILER_LENGTH));
  if (declared !== len) throw corrupt(`${len} bytes, but its trailer says ${declared}`);
  const v = viewOf(footer);
  if (v.getUint32(0, true) !== CHUNK_MAGIC) throw corrupt("does not start with the magic");
  const storedCrc = v.getUint32(len - 8, true);
  const crc = crc32c(footer.subarray(0, len - 8));
  if (crc !== storedCrc) throw corrupt(`footer_crc ${hex(storedCrc)}, bytes give ${hex(crc)}`);
  // Past the CRC the bytes are as written, so what remains catches a writer that broke the rules.
  const formatVersion = v.getUint8(4);
  if (formatVersion !== CHUNK_FORMAT_VERSION) {
    throw corrupt(`format version ${formatVersion}, this reader knows ${CHUNK_FORMAT_VERSION}`);
  }
  const count = v.getUint32(13, true);
  if (footerLength(count) !== len) {
    throw corrupt(`count ${count} needs a ${footerLength(count)}-byte footer, it is ${len}`);
  }
  const firstSeqNum = v.getBigUint64(5, true);
  if (firstSeqNum + BigInt(count) - 1n > MAX_U64) {
    throw corrupt(`first_seq_num ${firstSeqNum} + ${count} records passes 2^64 - 1`);
  }
  const recordOffsets = [0];
  const timestamps: bigint[] = [];
  let offset = 0;
  for (let i = 0; i < count; i++) {
    const recordLen = v.getUint32(HEAD_LENGTH + 4 * i, true);
    // Every stored record has at least its flag byte.
    if (recordLen === 0) throw corrupt(`record ${i} has length 0`);
    offset += recordLen;
    recordOffsets.push(offset);
    timestamps.push(v.getBigInt64(HEAD_LENGTH + 4 * count + 8 * i, true));
  }
  const payloadBytes = v.getBigUint64(17, true);
  if (payloadBytes !== BigInt(offset)) {
    throw corrupt(`payload_bytes ${payloadBytes}, record lengths sum to ${offset}`);
  }
  return {
    formatVersion,
    firstSeqNum,
    count,
    recordOffsets,
    timestamps,
    dataCrc: v.getUint32(len - 16, true),
    payloadBytes: offset,
  };
}

export function hex(n: number): string {
  return `0x${n.toString(16).padStart(8, "0")}`;
}
