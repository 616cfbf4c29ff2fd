// Records between JSON and the proto: AppendInput in, ReadBatch and AppendAck out.

import { isUtf8 } from "node:buffer";
import { contentBytes } from "../../contract/codec/index.ts";
import { MAX_BATCH_BYTES, MAX_RECORD_BYTES } from "../../contract/wire-limits.ts";
import type { AppendRecord } from "../../gen/nova/v1/AppendRecord.ts";
import type { AppendRequest } from "../../gen/nova/v1/AppendRequest.ts";
import type { AppendResponse__Output } from "../../gen/nova/v1/AppendResponse.ts";
import type { Header } from "../../gen/nova/v1/Header.ts";
import type { Position__Output } from "../../gen/nova/v1/Position.ts";
import type { Record__Output } from "../../gen/nova/v1/Record.ts";
import { invalidArgument, payloadTooLarge } from "../errors/index.ts";
import { readFencingToken } from "./fence.ts";
import { asObject, fieldPath } from "./fields.ts";
import { bytesFromJson, bytesToJson, type RecordFormat } from "./format.ts";
import {
  type ExactInt,
  INT64,
  type Int64Mode,
  readExactInt,
  UINT64,
  writeExactInt,
} from "./integers.ts";
import { needsJsonEscape } from "./json-escape.ts";
import { type ScratchJson, ScratchWriter, scratchBytes } from "./json-scratch.ts";
import { type PositionJson, positionToJson } from "./position-json.ts";

/** Caps in content bytes (body plus every header name and value; framing never counts). */
export interface AppendLimits {
  maxRecordBytes: number;
  maxBatchBytes: number;
}

export const DEFAULT_APPEND_LIMITS: AppendLimits = {
  maxRecordBytes: MAX_RECORD_BYTES,
  maxBatchBytes: MAX_BATCH_BYTES,
};

export interface HeaderProto extends Header {
  name: Buffer;
  value: Buffer;
}

export interface AppendRecordProto extends AppendRecord {
  body: Buffer;
  headers: HeaderProto[];
  timestamp_ms?: string;
}

/** An AppendRequest without its address (bucket, key), ready for the star. */
export interface AppendBatchProto extends Omit<AppendRequest, "bucket" | "key"> {
  records: AppendRecordProto[];
  match_seq_num?: string;
  fencing_token?: string;
}

/**
 * An AppendInput body as it reaches translation: it has passed the AppendInput schema (the
 * route's body validation, or an NDJSON line's check against the same compiled schema), so its
 * shape is known. What the schema cannot say is checked here.
 */
interface AppendInputJson {
  records?: AppendRecordJson[];
  match_seq_num?: unknown;
  fencing_token?: unknown;
}

interface AppendRecordJson {
  body?: string;
  headers?: ({ name: string; value: string } | [string, string])[];
  timestamp_ms?: unknown;
}

/**
 * AppendInput JSON, already of the schema's shape, to the proto batch. Refuses what only the
 * bytes and exact integers show: a body or header that is not the format's text (raw UTF-8,
 * base64), an empty name in a [name, value] pair, a timestamp outside int64, a match_seq_num outside
 * uint64, a fencing token over 48 UTF-8 bytes, a record over the per-record cap (400) and a
 * batch over the batch cap (413), each naming the record.
 */
export function appendInputFromJson(
  input: unknown,
  format: RecordFormat,
  limits: AppendLimits = DEFAULT_APPEND_LIMITS,
): AppendBatchProto {
  // Fastify validates a body by its media type: a POST with neither body nor content type
  // reaches here unvalidated, as `undefined`.
  const obj = asObject(input, "body", invalidArgument) as unknown as AppendInputJson;
  const records: AppendRecordProto[] = [];
  let batchBytes = 0;
  // Absent only in a close (CloseInput); an append's schema requires records.
  for (const [i, item] of (obj.records ?? []).entries()) {
    const field = fieldPath("records", i);
    const record = appendRecordFromJson(item, format, field);
    const size = contentBytes(record);
    if (size > limits.maxRecordBytes) {
      throw invalidArgument(
        field,
        `is ${size} content bytes; the limit is ${limits.maxRecordBytes}`,
      );
    }
    batchBytes += size;
    if (batchBytes > limits.maxBatchBytes) {
      throw payloadTooLarge(
        field,
        `brings the batch to ${batchBytes} content bytes; the limit is ${limits.maxBatchBytes}`,
      );
    }
    records.push(record);
  }
  const batch: AppendBatchProto = { records };
  if (obj.match_seq_num !== undefined) {
    batch.match_seq_num = readExactInt(
      obj.match_seq_num,
      UINT64,
      "match_seq_num",
      invalidArgument,
    ).toString();
  }
  if (obj.fencing_token !== undefined) {
    batch.fencing_token = readFencingToken(obj.fencing_token, "fencing_token");
  }
  return batch;
}

function appendRecordFromJson(
  item: AppendRecordJson,
  format: RecordFormat,
  field: string,
): AppendRecordProto {
  const record: AppendRecordProto = {
    body:
      item.body === undefined
        ? Buffer.alloc(0)
        : bytesFromJson(item.body, format, fieldPath(field, "body")),
    headers: (item.headers ?? []).map((header, j) =>
      headerFromJson(header, format, fieldPath(fieldPath(field, "headers"), j)),
    ),
  };
  if (item.timestamp_ms !== undefined) {
    record.timestamp_ms = readExactInt(
      item.timestamp_ms,
      INT64,
      fieldPath(field, "timestamp_ms"),
      invalidArgument,
    ).toString();
  }
  return record;
}

/** `{name, value}`, or the pair `[name, value]`. */
function headerFromJson(
  item: { name: string; value: string } | [string, string],
  format: RecordFormat,
  field: string,
): HeaderProto {
  const pair = Array.isArray(item);
  const [name, value] = pair ? item : [item.name, item.value];
  const nameField = fieldPath(field, pair ? 0 : "name");
  const valueField = fieldPath(field, pair ? 1 : "value");
  const header: HeaderProto = {
    name: bytesFromJson(name, format, nameField),
    value: bytesFromJson(value, format, valueField),
  };
  // The schema's [name, value] pair is two strings, either of them empty.
  if (header.name.length === 0) throw invalidArgument(nameField, "must not be empty");
  return header;
}

export interface HeaderJson {
  name: string;
  value: string;
}

export interface ReadRecordJson {
  seq_num: ExactInt;
  timestamp_ms: ExactInt;
  headers: HeaderJson[];
  body: string;
}

export interface ReadBatchJson {
  records: ReadRecordJson[];
  tail: PositionJson;
}

/** One served record; in `raw`, 422 not_utf8 naming the seq_num and the field. */
export function recordToJson(
  r: Record__Output,
  format: RecordFormat,
  mode: Int64Mode,
): ReadRecordJson {
  return {
    seq_num: writeExactInt(r.seq_num, mode),
    timestamp_ms: writeExactInt(r.timestamp_ms, mode),
    headers: r.headers.map((h, j) => ({
      name: bytesToJson(h.name, format, r.seq_num, `headers[${j}].name`),
      value: bytesToJson(h.value, format, r.seq_num, `headers[${j}].value`),
    })),
    body: bytesToJson(r.body, format, r.seq_num, "body"),
  };
}

/**
 * ReadResponse and SubscribeResponse as a JSON value: `{ records, tail }`. Replies use the byte
 * writer below; this plain form is its specification, which the property tests compare it with.
 */
export function readBatchToJson(
  response: { records: Record__Output[]; tail: Position__Output | null },
  format: RecordFormat,
  mode: Int64Mode,
): ReadBatchJson {
  return {
    records: response.records.map((r) => recordToJson(r, format, mode)),
    tail: positionToJson(response.tail, mode),
  };
}

/** Where framed JSON is written: a buffer of exactly `size` bytes, contents undefined. */
export type Allocate = (size: number) => Buffer;

/** `before`, the JSON, `after`: one allocation (by `allocate`) and one copy of the JSON. */
export function framedJson(
  before: string,
  json: ScratchJson,
  after: string,
  allocate: Allocate = Buffer.allocUnsafe,
): Buffer {
  const body = scratchBytes(json);
  const headLength = Buffer.byteLength(before);
  const out = allocate(headLength + body.length + Buffer.byteLength(after));
  out.write(before, 0, "utf8");
  out.set(body, headLength);
  out.write(after, headLength + body.length, "utf8");
  return out;
}

/** A JSON string for record bytes: its text, or bytes that are their own content. */
type StringPiece = string | Uint8Array;

/**
 * The UTF-8 of the records' JSON as stringifyJsonExact writes recordToJson's, comma-separated,
 * up to the first record that cannot be shown in this format (its error is `failure`), in the
 * scratch (framedJson copies it out). Written from the proto records with no object per record,
 * and raw bytes that need no escape are copied as they are: the catch-up hot path.
 */
export function recordsJsonBytes(
  records: readonly Record__Output[],
  format: RecordFormat,
  mode: Int64Mode,
): { json: ScratchJson; written: number; failure?: unknown } {
  const out = new ScratchWriter();
  let written = 0;
  for (const r of records) {
    let headers: StringPiece[] | undefined;
    let body: StringPiece;
    try {
      for (let j = 0; j < r.headers.length; j++) {
        const h = r.headers[j] as Record__Output["headers"][number];
        headers ??= [];
        headers.push(stringPiece(h.name, format, r.seq_num, `headers[${j}].name`));
        headers.push(stringPiece(h.value, format, r.seq_num, `headers[${j}].value`));
      }
      body = stringPiece(r.body, format, r.seq_num, "body");
    } catch (failure) {
      return { json: out.finish(), written, failure };
    }
    const start = `${written === 0 ? "" : ","}{"seq_num":${intText(r.seq_num, mode)},"timestamp_ms":${intText(r.timestamp_ms, mode)},"headers":[`;
    if (headers === undefined) {
      // The common record: one string up to the body.
      out.ascii(`${start}],"body":`);
    } else {
      out.ascii(start);
      for (let k = 0; k < headers.length; k += 2) {
        out.ascii(k === 0 ? '{"name":' : ',{"name":');
        writePiece(out, headers[k] as StringPiece, format);
        out.ascii(',"value":');
        writePiece(out, headers[k + 1] as StringPiece, format);
        out.byte(0x7d);
      }
      out.ascii('],"body":');
    }
    writePiece(out, body, format);
    out.byte(0x7d);
    written++;
  }
  return { json: out.finish(), written };
}

/** The UTF-8 of stringifyJsonExact(readBatchToJson(...)), byte for byte; the same errors. */
export function readBatchJsonBytes(
  response: {
    records: readonly Record__Output[];
    tail: Position__Output | null;
    closed?: boolean;
  },
  format: RecordFormat,
  mode: Int64Mode,
  allocate?: Allocate,
): Buffer {
  const { json, failure, written } = recordsJsonBytes(response.records, format, mode);
  if (written < response.records.length) throw failure;
  const closed = response.closed ? ',"closed":true' : "";
  const tail = `],"tail":${positionText(response.tail, mode)}${closed}}`;
  return framedJson('{"records":[', json, tail, allocate);
}

/** stringifyJsonExact(positionToJson(...)). */
export function positionText(p: Position__Output | null | undefined, mode: Int64Mode): string {
  return `{"seq_num":${intText(p?.seq_num ?? "0", mode)},"timestamp_ms":${intText(p?.timestamp_ms ?? "0", mode)}}`;
}

// Already the digits BigInt would print back: no leading zero, no sign, no space.
const CANONICAL = /^(?:0|[1-9][0-9]*)$/;

/** writeExactInt's JSON text: digits, or a quoted decimal string (digits need no escape). */
function intText(value: string | bigint, mode: Int64Mode): string {
  const digits =
    typeof value === "string" && CANONICAL.test(value) ? value : BigInt(value).toString();
  return mode === "string" ? `"${digits}"` : digits;
}

/**
 * bytesToJson's JSON string. Valid UTF-8 with nothing to escape is its own content (decoding
 * and encoding again would give the same bytes), so it is kept as bytes.
 */
function stringPiece(
  bytes: Uint8Array,
  format: RecordFormat,
  seqNum: string,
  field: string,
): StringPiece {
  if (format === "raw" && isUtf8(bytes) && !needsJsonEscape(bytes)) return bytes;
  const text = bytesToJson(bytes, format, seqNum, field);
  // Base64 needs no escape.
  return format === "base64" ? `"${text}"` : JSON.stringify(text);
}

function writePiece(out: ScratchWriter, piece: StringPiece, format: RecordFormat): void {
  if (typeof piece !== "string") {
    out.byte(0x22);
    out.bytes(piece);
    out.byte(0x22);
  } else if (format === "base64") {
    out.ascii(piece);
  } else {
    // Escaped JSON text keeps its non-ASCII characters.
    out.text(piece);
  }
}

export interface AppendAckJson {
  start: PositionJson;
  end: PositionJson;
  tail: PositionJson;
  /** Only when true: a producer's retry, nothing appended (docs/producers.md). */
  duplicate?: true;
  /** Only when true: the stream is closed. */
  closed?: true;
}

/** An ack as the star gives it; the flags are absent in acks made by the gateway. */
export type AppendAckInput = Pick<AppendResponse__Output, "start" | "end" | "tail"> &
  Partial<Pick<AppendResponse__Output, "duplicate" | "closed">>;

export function appendAckToJson(response: AppendAckInput, mode: Int64Mode): AppendAckJson {
  const out: AppendAckJson = {
    start: positionToJson(response.start, mode),
    end: positionToJson(response.end, mode),
    tail: positionToJson(response.tail, mode),
  };
  if (response.duplicate) out.duplicate = true;
  if (response.closed) out.closed = true;
  return out;
}
