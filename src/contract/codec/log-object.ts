// A log object (docs/storage-layout.md, "Log objects"): what one group commit of a star wrote
// for every stream it leads, each stream's batches as one embedded chunk, so settling and
// replay reuse the chunk codec and its CRCs. Whole-object CRC, because a log object is only ever
// read whole (replay, a member reading a stopped leader's unsettled records).
import { type ChunkRecord, type DecodedChunkRecord, decodeChunk, encodeChunk } from "./chunk.ts";
import { crc32c } from "./crc32c.ts";
import { CorruptionError } from "./errors.ts";

/** `4e 56 4c 47`, ASCII `NVLG`, at both ends. */
export const LOG_MAGIC = Buffer.from("NVLG", "latin1");
export const LOG_FORMAT_VERSION = 1;
const HEADER = 4 + 1 + 4;
const TRAILER = 4 + 4;
const MAX_U16 = 0xffff;

/** One stream's records in a log object: contiguous from `firstSeqNum`. */
export interface LogEntry {
  streamId: string;
  bucket: string;
  key: string;
  firstSeqNum: bigint;
  records: ChunkRecord[];
}

export interface DecodedLogEntry {
  streamId: string;
  bucket: string;
  key: string;
  firstSeqNum: bigint;
  records: DecodedChunkRecord[];
}

function text(value: string, what: string): Buffer {
  const bytes = Buffer.from(value, "utf8");
  if (bytes.length > MAX_U16) throw new RangeError(`log object: ${what} over ${MAX_U16} bytes`);
  return bytes;
}

/** Encodes a log object. RangeError for no entries or values the format cannot hold. */
export function encodeLogObject(entries: readonly LogEntry[]): Buffer {
  if (entries.length === 0) throw new RangeError("log object: no entries");
  const parts: Buffer[] = [];
  const head = Buffer.alloc(HEADER);
  LOG_MAGIC.copy(head, 0);
  head.writeUInt8(LOG_FORMAT_VERSION, 4);
  head.writeUInt32LE(entries.length, 5);
  parts.push(head);
  for (const e of entries) {
    for (const value of [
      text(e.streamId, "stream_id"),
      text(e.bucket, "bucket"),
      text(e.key, "key"),
    ]) {
      const len = Buffer.alloc(2);
      len.writeUInt16LE(value.length);
      parts.push(len, value);
    }
    const chunk = encodeChunk(e.firstSeqNum, e.records).bytes;
    const len = Buffer.alloc(4);
    len.writeUInt32LE(chunk.length);
    parts.push(len, chunk);
  }
  const body = Buffer.concat(parts);
  const tail = Buffer.alloc(TRAILER);
  tail.writeUInt32LE(crc32c(body), 0);
  LOG_MAGIC.copy(tail, 4);
  return Buffer.concat([body, tail]);
}

/** Decodes and verifies a whole log object; any damage is a CorruptionError. */
export function decodeLogObject(bytes: Uint8Array): DecodedLogEntry[] {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.length < HEADER + TRAILER) {
    throw new CorruptionError(`log object: ${buf.length} bytes, shorter than header and trailer`);
  }
  if (!buf.subarray(0, 4).equals(LOG_MAGIC) || !buf.subarray(buf.length - 4).equals(LOG_MAGIC)) {
    throw new CorruptionError("log object: bad magic");
  }
  const bodyEnd = buf.length - TRAILER;
  if (crc32c(buf.subarray(0, bodyEnd)) !== buf.readUInt32LE(bodyEnd)) {
    throw new CorruptionError("log object: crc mismatch");
  }
  const version = buf.readUInt8(4);
  if (version !== LOG_FORMAT_VERSION) {
    throw new CorruptionError(`log object: format_version ${version}, expected 1`);
  }
  const count = buf.readUInt32LE(5);
  let off = HEADER;
  const take = (n: number): Buffer => {
    if (off + n > bodyEnd) throw new CorruptionError("log object: an entry runs past the end");
    const out = buf.subarray(off, off + n);
    off += n;
    return out;
  };
  const utf8 = (b: Buffer) => new TextDecoder("utf-8", { fatal: true }).decode(b);
  const entries: DecodedLogEntry[] = [];
  for (let i = 0; i < count; i++) {
    const [streamId, bucket, key] = [0, 1, 2].map(() => {
      try {
        return utf8(take(take(2).readUInt16LE()));
      } catch (err) {
        if (err instanceof CorruptionError) throw err;
        throw new CorruptionError(`log object: entry ${i} has a name that is not UTF-8`);
      }
    }) as [string, string, string];
    const { footer, records } = decodeChunk(take(take(4).readUInt32LE()));
    entries.push({ streamId, bucket, key, firstSeqNum: footer.firstSeqNum, records });
  }
  if (off !== bodyEnd) throw new CorruptionError("log object: bytes after the last entry");
  if (entries.length === 0) throw new CorruptionError("log object: no entries");
  return entries;
}
