// The stored record (docs/storage-layout.md, "Stored record"): one flag byte, a header table when there are
// headers, then the body. Sequence number and timestamp live in the chunk directory, and the
// chunk directory frames the record, so the body carries no length of its own.
import { CorruptionError } from "./errors.ts";
import { readUintLE, widthFor, writeUintLE } from "./uint-le.ts";

export interface RecordHeader {
  name: Uint8Array;
  value: Uint8Array;
}

export interface StoredRecord {
  headers: RecordHeader[];
  body: Uint8Array;
}

/** The header count is one byte. */
const MAX_HEADERS = 255;
/** Flag bits 0-1 = 01: a one-byte header count follows the flag. */
const COUNT_ONE_BYTE = 0b01;

/** Body plus every header name and value: the one size every cap and budget meters. */
export function contentBytes(r: StoredRecord): number {
  let n = r.body.length;
  for (const h of r.headers) n += h.name.length + h.value.length;
  return n;
}

interface Layout {
  flag: number;
  nameWidth: number;
  valueWidth: number;
  /** Flag byte, header table and content. */
  length: number;
}

function layoutOf(r: StoredRecord): Layout {
  const count = r.headers.length;
  if (count === 0) return { flag: 0, nameWidth: 0, valueWidth: 0, length: 1 + r.body.length };
  if (count > MAX_HEADERS) {
    throw new RangeError(
      `stored record: ${count} headers, the one-byte count holds ${MAX_HEADERS}`,
    );
  }
  let longestName = 0;
  let longestValue = 0;
  for (const h of r.headers) {
    longestName = Math.max(longestName, h.name.length);
    longestValue = Math.max(longestValue, h.value.length);
  }
  const nameWidth = widthFor(longestName);
  const valueWidth = widthFor(longestValue);
  return {
    flag: COUNT_ONE_BYTE | ((nameWidth - 1) << 2) | ((valueWidth - 1) << 4),
    nameWidth,
    valueWidth,
    length: 2 + count * (nameWidth + valueWidth) + contentBytes(r),
  };
}

/** Stored bytes of `r`: 1 + header table + content bytes. RangeError when unrepresentable. */
export function encodedLength(r: StoredRecord): number {
  return layoutOf(r).length;
}

/** Writes `r` at `out[offset]` and returns the bytes written; writes nothing if it won't fit. */
export function encodeStoredRecordInto(r: StoredRecord, out: Uint8Array, offset: number): number {
  const { flag, nameWidth, valueWidth, length } = layoutOf(r);
  if (!Number.isInteger(offset) || offset < 0 || offset + length > out.length) {
    throw new RangeError(
      `stored record: ${length} bytes do not fit at offset ${offset} of a ${out.length}-byte buffer`,
    );
  }
  out[offset] = flag;
  let pos = offset + 1;
  if (flag !== 0) {
    out[pos++] = r.headers.length;
    let pair = pos;
    pos += r.headers.length * (nameWidth + valueWidth);
    for (const { name, value } of r.headers) {
      writeUintLE(out, pair, nameWidth, name.length);
      pair += nameWidth;
      writeUintLE(out, pair, valueWidth, value.length);
      pair += valueWidth;
      out.set(name, pos);
      pos += name.length;
      out.set(value, pos);
      pos += value.length;
    }
  }
  out.set(r.body, pos);
  return length;
}

export function encodeStoredRecord(r: StoredRecord): Buffer {
  const out = Buffer.allocUnsafe(encodedLength(r));
  encodeStoredRecordInto(r, out, 0);
  return out;
}

function corrupt(what: string): CorruptionError {
  return new CorruptionError(`stored record: ${what}`);
}

/**
 * Decodes exactly one framed stored record. Names, values and body are views into `bytes`,
 * not copies. Strict: every deviation from the one layout is a CorruptionError.
 */
export function decodeStoredRecord(bytes: Uint8Array): StoredRecord {
  const flag = bytes[0];
  if (flag === undefined) throw corrupt("empty input, no flag byte");
  if (flag & 0x40) throw corrupt("reserved flag bit 6 set");
  if (flag & 0x80) throw corrupt("reserved flag bit 7 set");
  const countWidth = flag & 0b11;
  if (countWidth === 0) {
    if (flag !== 0) {
      throw corrupt(`headerless flag 0x${flag.toString(16).padStart(2, "0")} has width bits set`);
    }
    return { headers: [], body: bytes.subarray(1) };
  }
  if (countWidth !== COUNT_ONE_BYTE) {
    throw corrupt(`reserved count width ${countWidth.toString(2)}`);
  }
  const count = bytes[1];
  if (count === undefined) throw corrupt("header count runs past the framed length (1 byte)");
  if (count === 0) throw corrupt("zero header count under a one-byte count width");
  const nameWidth = ((flag >>> 2) & 0b11) + 1;
  const valueWidth = ((flag >>> 4) & 0b11) + 1;
  const tableEnd = 2 + count * (nameWidth + valueWidth);
  if (tableEnd > bytes.length) {
    throw corrupt(`header table runs past the framed length (${tableEnd} > ${bytes.length} bytes)`);
  }
  const headers: RecordHeader[] = [];
  let pair = 2;
  let pos = tableEnd;
  for (let i = 0; i < count; i++) {
    const nameEnd = pos + readUintLE(bytes, pair, nameWidth);
    pair += nameWidth;
    const valueEnd = nameEnd + readUintLE(bytes, pair, valueWidth);
    pair += valueWidth;
    if (valueEnd > bytes.length) {
      throw corrupt(
        `header ${i} bytes run past the framed length (${valueEnd} > ${bytes.length} bytes)`,
      );
    }
    headers.push({ name: bytes.subarray(pos, nameEnd), value: bytes.subarray(nameEnd, valueEnd) });
    pos = valueEnd;
  }
  return { headers, body: bytes.subarray(pos) };
}
