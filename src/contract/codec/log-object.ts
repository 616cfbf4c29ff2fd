// A log object (docs/storage-layout.md, "Log objects"): what one group commit of a star wrote
// for every stream it leads, each stream's batches as one embedded chunk, so settling and
// replay reuse the chunk codec and its CRCs. Whole-object CRC, because a log object is only ever
// read whole (replay, a member reading a stopped leader's unsettled records).
import { type ChunkRecord, type DecodedChunkRecord, decodeChunk, encodeChunk } from "./chunk.ts";
import { crc32c } from "./crc32c.ts";
import { CorruptionError } from "./errors.ts";
import { decodeUtf8Exact } from "./utf8.ts";

/** `4e 56 4c 47`, ASCII `NVLG`, at both ends. */
export const LOG_MAGIC = Buffer.from("NVLG", "latin1");
/**
 * Version 2 added each entry's marks, version 3 the writer seq mark; version 1 objects (no
 * marks) and version 2 ones still decode.
 */
export const LOG_FORMAT_VERSION = 3;
const HEADER = 4 + 1 + 4;
const TRAILER = 4 + 4;
const MAX_U16 = 0xffff;

/** A batch of the entry that a producer stamped, and where it landed. */
export interface ProducerMark {
  id: string;
  epoch: bigint;
  seq: bigint;
  start: bigint;
  end: bigint;
  timestampMs: bigint;
}

/**
 * What a commit did besides its records: the producers it acknowledged, a close, and the last
 * writer seq it took (Durable Streams' Stream-Seq).
 */
export interface EntryMarks {
  producers: ProducerMark[];
  closed: boolean;
  writerSeq?: string;
}

export const NO_MARKS: EntryMarks = Object.freeze({ producers: [], closed: false });

/** One stream's records in a log object: contiguous from `firstSeqNum`. */
export interface LogEntry {
  streamId: string;
  bucket: string;
  key: string;
  firstSeqNum: bigint;
  records: ChunkRecord[];
  marks?: EntryMarks;
}

export interface DecodedLogEntry {
  streamId: string;
  bucket: string;
  key: string;
  firstSeqNum: bigint;
  records: DecodedChunkRecord[];
  marks: EntryMarks;
}

const MARK_FIXED = 8 + 8 + 8 + 8 + 8;
const CLOSED_FLAG = 1;
const WRITER_SEQ_FLAG = 2;

function encodeMarks(marks: EntryMarks): Buffer[] {
  if (marks.producers.length > MAX_U16) {
    throw new RangeError(`log object: over ${MAX_U16} producer marks in one entry`);
  }
  const head = Buffer.alloc(3);
  const writerSeq = marks.writerSeq === undefined ? undefined : text(marks.writerSeq, "writer seq");
  head.writeUInt8((marks.closed ? CLOSED_FLAG : 0) | (writerSeq ? WRITER_SEQ_FLAG : 0), 0);
  head.writeUInt16LE(marks.producers.length, 1);
  const parts: Buffer[] = [head];
  for (const m of marks.producers) {
    const id = text(m.id, "producer id");
    const fixed = Buffer.alloc(2 + MARK_FIXED);
    fixed.writeUInt16LE(id.length, 0);
    fixed.writeBigUInt64LE(m.epoch, 2);
    fixed.writeBigUInt64LE(m.seq, 10);
    fixed.writeBigUInt64LE(m.start, 18);
    fixed.writeBigUInt64LE(m.end, 26);
    fixed.writeBigInt64LE(m.timestampMs, 34);
    parts.push(fixed.subarray(0, 2), id, fixed.subarray(2));
  }
  if (writerSeq) {
    const len = Buffer.alloc(2);
    len.writeUInt16LE(writerSeq.length);
    parts.push(len, writerSeq);
  }
  return parts;
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
    parts.push(len, chunk, ...encodeMarks(e.marks ?? NO_MARKS));
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
  if (version < 1 || version > LOG_FORMAT_VERSION) {
    throw new CorruptionError(
      `log object: format_version ${version}, expected 1 to ${LOG_FORMAT_VERSION}`,
    );
  }
  const count = buf.readUInt32LE(5);
  let off = HEADER;
  const take = (n: number): Buffer => {
    if (off + n > bodyEnd) throw new CorruptionError("log object: an entry runs past the end");
    const out = buf.subarray(off, off + n);
    off += n;
    return out;
  };
  const entries: DecodedLogEntry[] = [];
  for (let i = 0; i < count; i++) {
    const [streamId, bucket, key] = [0, 1, 2].map(() => {
      try {
        return decodeUtf8Exact(take(take(2).readUInt16LE()));
      } catch (err) {
        if (err instanceof CorruptionError) throw err;
        throw new CorruptionError(`log object: entry ${i} has a name that is not UTF-8`);
      }
    }) as [string, string, string];
    const { footer, records } = decodeChunk(take(take(4).readUInt32LE()));
    const marks = version === 1 ? NO_MARKS : decodeMarks(take, i, version);
    entries.push({ streamId, bucket, key, firstSeqNum: footer.firstSeqNum, records, marks });
  }
  if (off !== bodyEnd) throw new CorruptionError("log object: bytes after the last entry");
  if (entries.length === 0) throw new CorruptionError("log object: no entries");
  return entries;
}

function decodeMarks(take: (n: number) => Buffer, entry: number, version: number): EntryMarks {
  const flags = take(1).readUInt8(0);
  const known = version >= 3 ? CLOSED_FLAG | WRITER_SEQ_FLAG : CLOSED_FLAG;
  if ((flags & ~known) !== 0) {
    throw new CorruptionError(`log object: entry ${entry} has unknown flags ${flags}`);
  }
  const count = take(2).readUInt16LE(0);
  const producers: ProducerMark[] = [];
  for (let j = 0; j < count; j++) {
    let id: string;
    try {
      id = decodeUtf8Exact(take(take(2).readUInt16LE(0)));
    } catch (err) {
      if (err instanceof CorruptionError) throw err;
      throw new CorruptionError(`log object: entry ${entry} has a producer id that is not UTF-8`);
    }
    const f = take(MARK_FIXED);
    producers.push({
      id,
      epoch: f.readBigUInt64LE(0),
      seq: f.readBigUInt64LE(8),
      start: f.readBigUInt64LE(16),
      end: f.readBigUInt64LE(24),
      timestampMs: f.readBigInt64LE(32),
    });
  }
  const closed = (flags & CLOSED_FLAG) !== 0;
  if ((flags & WRITER_SEQ_FLAG) === 0) return { producers, closed };
  try {
    return { producers, closed, writerSeq: decodeUtf8Exact(take(take(2).readUInt16LE(0))) };
  } catch (err) {
    if (err instanceof CorruptionError) throw err;
    throw new CorruptionError(`log object: entry ${entry} has a writer seq that is not UTF-8`);
  }
}
