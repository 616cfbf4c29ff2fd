// Records between JSON and the proto: AppendInput in, ReadBatch and AppendAck out.

import { contentBytes } from "../codec/stored-record.ts";
import type { AppendRecord } from "../gen/nova/v1/AppendRecord.ts";
import type { AppendRequest } from "../gen/nova/v1/AppendRequest.ts";
import type { AppendResponse__Output } from "../gen/nova/v1/AppendResponse.ts";
import type { Header } from "../gen/nova/v1/Header.ts";
import type { Position__Output } from "../gen/nova/v1/Position.ts";
import type { Record__Output } from "../gen/nova/v1/Record.ts";
import { MAX_BATCH_BYTES, MAX_HEADERS_PER_RECORD, MAX_RECORD_BYTES } from "../proto/wire-limits.ts";
import { invalidArgument, payloadTooLarge } from "./errors.ts";
import { readFencingToken } from "./fence.ts";
import { asArray, asObject, asString, fieldPath, rejectUnknown } from "./fields.ts";
import { bytesFromJson, bytesToJson, type RecordFormat } from "./format.ts";
import {
  type ExactInt,
  type Int64Mode,
  NON_NEGATIVE_INT64,
  readExactInt,
  UINT64,
  writeExactInt,
} from "./integers.ts";
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

const INPUT_FIELDS: ReadonlySet<string> = new Set(["records", "match_seq_num", "fencing_token"]);
const RECORD_FIELDS: ReadonlySet<string> = new Set(["body", "headers", "timestamp_ms"]);
const HEADER_FIELDS: ReadonlySet<string> = new Set(["name", "value"]);

/**
 * AppendInput JSON to the proto batch. Refuses what the gateway can know without the star: no
 * records, more than 100 headers, an empty header name, a negative timestamp, a record over the
 * per-record cap (400) and a batch over the batch cap (413), each naming the record.
 */
export function appendInputFromJson(
  input: unknown,
  format: RecordFormat,
  limits: AppendLimits = DEFAULT_APPEND_LIMITS,
): AppendBatchProto {
  const obj = asObject(input, "body", invalidArgument);
  rejectUnknown(obj, INPUT_FIELDS, "", invalidArgument);
  if (obj.records === undefined) throw invalidArgument("records", "is required");
  const list = asArray(obj.records, "records", invalidArgument);
  if (list.length === 0) throw invalidArgument("records", "must hold at least one record");
  const records: AppendRecordProto[] = [];
  let batchBytes = 0;
  for (const [i, item] of list.entries()) {
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
  item: unknown,
  format: RecordFormat,
  field: string,
): AppendRecordProto {
  const obj = asObject(item, field, invalidArgument);
  rejectUnknown(obj, RECORD_FIELDS, field, invalidArgument);
  const bodyField = fieldPath(field, "body");
  const record: AppendRecordProto = {
    body:
      obj.body === undefined
        ? Buffer.alloc(0)
        : bytesFromJson(asString(obj.body, bodyField, invalidArgument), format, bodyField),
    headers: obj.headers === undefined ? [] : headersFromJson(obj.headers, format, field),
  };
  if (obj.timestamp_ms !== undefined) {
    const tsField = fieldPath(field, "timestamp_ms");
    record.timestamp_ms = readExactInt(
      obj.timestamp_ms,
      NON_NEGATIVE_INT64,
      tsField,
      invalidArgument,
    ).toString();
  }
  return record;
}

function headersFromJson(value: unknown, format: RecordFormat, recordField: string): HeaderProto[] {
  const field = fieldPath(recordField, "headers");
  const list = asArray(value, field, invalidArgument);
  if (list.length > MAX_HEADERS_PER_RECORD) {
    throw invalidArgument(
      field,
      `has ${list.length} headers; the limit is ${MAX_HEADERS_PER_RECORD}`,
    );
  }
  return list.map((item, j) => headerFromJson(item, format, fieldPath(field, j)));
}

/** `{name, value}`, or the pair `[name, value]`. */
function headerFromJson(item: unknown, format: RecordFormat, field: string): HeaderProto {
  let nameField: string;
  let valueField: string;
  let name: unknown;
  let value: unknown;
  if (Array.isArray(item)) {
    if (item.length !== 2) {
      throw invalidArgument(field, `must be [name, value], not an array of ${item.length}`);
    }
    [nameField, valueField] = [fieldPath(field, 0), fieldPath(field, 1)];
    [name, value] = item;
  } else {
    const obj = asObject(item, field, invalidArgument);
    rejectUnknown(obj, HEADER_FIELDS, field, invalidArgument);
    [nameField, valueField] = [fieldPath(field, "name"), fieldPath(field, "value")];
    ({ name, value } = obj);
  }
  if (name === undefined || value === undefined) {
    throw invalidArgument(name === undefined ? nameField : valueField, "is required");
  }
  const header: HeaderProto = {
    name: bytesFromJson(asString(name, nameField, invalidArgument), format, nameField),
    value: bytesFromJson(asString(value, valueField, invalidArgument), format, valueField),
  };
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

/** ReadResponse and SubscribeResponse: `{ records, tail }`. */
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

export interface AppendAckJson {
  start: PositionJson;
  end: PositionJson;
  tail: PositionJson;
}

export function appendAckToJson(response: AppendResponse__Output, mode: Int64Mode): AppendAckJson {
  return {
    start: positionToJson(response.start, mode),
    end: positionToJson(response.end, mode),
    tail: positionToJson(response.tail, mode),
  };
}
