// S2's JSON bodies for records: AppendInput in; ReadBatch, AppendAck and positions out. Headers
// are [name, value] pairs, empty `headers` and `body` are left out, times are `timestamp`, and
// record bytes are text (`s2-format: raw`, the default) or base64 (`s2-format: base64`). Integers
// are exact both ways. Pure: no I/O.

import type { FieldError } from "../errors/index.ts";
import {
  asArray,
  asObject,
  asString,
  bytesFromJson,
  bytesToJson,
  fieldPath,
  readExactInt,
  rejectUnknown,
  UINT64,
} from "../translate/index.ts";
import type { S2AppendInput } from "./commands.ts";
import { S2HttpError, s2Error } from "./errors.ts";
import type {
  S2AppendAck,
  S2AppendRecord,
  S2Position,
  S2ReadBatch,
  S2SequencedRecord,
} from "./records.ts";

export type S2Format = "raw" | "base64";

export const S2_FORMAT_HEADER = "s2-format";

/** The `s2-format` header; S2 also takes its older names `json` and `json-binsafe`. */
export function s2Format(header: string | string[] | undefined): S2Format {
  if (header === undefined) return "raw";
  const value = typeof header === "string" ? header.trim() : "";
  if (value === "raw" || value === "json") return "raw";
  if (value === "base64" || value === "json-binsafe") return "base64";
  throw s2Error(
    "bad_header",
    `${S2_FORMAT_HEADER}: must be "raw" or "base64", not ${JSON.stringify(header)}`,
  );
}

/** Nova's field readers, refusing with S2's `invalid`. */
export const s2Invalid: FieldError = (field, reason) => s2Error("invalid", `${field}: ${reason}`);

const INPUT_FIELDS: ReadonlySet<string> = new Set(["records", "match_seq_num", "fencing_token"]);
const RECORD_FIELDS: ReadonlySet<string> = new Set(["timestamp", "headers", "body"]);

/** An AppendInput JSON body as S2's message (null stands for an absent optional field). */
export function appendInputFromS2Json(body: unknown, format: S2Format): S2AppendInput {
  const obj = asObject(body, "body", s2Invalid);
  rejectUnknown(obj, INPUT_FIELDS, "", s2Invalid);
  if (obj.records === undefined) throw s2Invalid("records", "is required");
  const records = asArray(obj.records, "records", s2Invalid).map((r, i) =>
    appendRecordFromS2Json(r, format, fieldPath("records", i)),
  );
  const input: S2AppendInput = { records };
  if (present(obj.match_seq_num)) {
    input.match_seq_num = readExactInt(
      obj.match_seq_num,
      UINT64,
      "match_seq_num",
      s2Invalid,
    ).toString();
  }
  if (present(obj.fencing_token)) {
    input.fencing_token = asString(obj.fencing_token, "fencing_token", s2Invalid);
  }
  return input;
}

function appendRecordFromS2Json(item: unknown, format: S2Format, field: string): S2AppendRecord {
  const obj = asObject(item, field, s2Invalid);
  rejectUnknown(obj, RECORD_FIELDS, field, s2Invalid);
  const bodyField = fieldPath(field, "body");
  const record: S2AppendRecord = {
    body: present(obj.body)
      ? translate(() => bytesFromJson(asString(obj.body, bodyField, s2Invalid), format, bodyField))
      : Buffer.alloc(0),
    headers: present(obj.headers) ? headersFromS2Json(obj.headers, format, field) : [],
  };
  if (present(obj.timestamp)) {
    record.timestamp = readExactInt(
      obj.timestamp,
      UINT64,
      fieldPath(field, "timestamp"),
      s2Invalid,
    ).toString();
  }
  return record;
}

function headersFromS2Json(value: unknown, format: S2Format, recordField: string) {
  const field = fieldPath(recordField, "headers");
  return asArray(value, field, s2Invalid).map((item, j) => {
    const at = fieldPath(field, j);
    if (!Array.isArray(item) || item.length !== 2) {
      throw s2Invalid(at, "a header is a [name, value] pair");
    }
    const [name, val] = item.map((part, k) =>
      translate(() =>
        bytesFromJson(asString(part, fieldPath(at, k), s2Invalid), format, fieldPath(at, k)),
      ),
    ) as [Buffer, Buffer];
    return { name, value: val };
  });
}

/** Nova's byte readers throw nova's errors; on this face they are S2's `invalid`. */
function translate<T>(read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof S2HttpError || !(err instanceof Error)) throw err;
    throw s2Error("invalid", err.message);
  }
}

function present(value: unknown): boolean {
  return value !== undefined && value !== null;
}

// ---- out ----

export interface S2PositionJson {
  seq_num: bigint;
  timestamp: bigint;
}

export function positionToS2Json(p: S2Position): S2PositionJson {
  return { seq_num: BigInt(p.seq_num), timestamp: BigInt(p.timestamp) };
}

export function appendAckToS2Json(ack: S2AppendAck) {
  return {
    start: positionToS2Json(ack.start as S2Position),
    end: positionToS2Json(ack.end as S2Position),
    tail: positionToS2Json(ack.tail as S2Position),
  };
}

export interface S2RecordJson {
  seq_num: bigint;
  timestamp: bigint;
  headers?: [string, string][];
  body?: string;
}

/**
 * S2's raw format is text by S2's definition: bytes that are not UTF-8 are shown with U+FFFD,
 * as S2 shows them (the client asked for text; `s2-format: base64` gives the bytes). nova's
 * own API never does this: it refuses with not_utf8 instead.
 */
const s2Text = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

function textOf(bytes: Uint8Array, format: S2Format, seqNum: string, field: string): string {
  if (format === "raw") return s2Text.decode(bytes);
  return bytesToJson(bytes, format, seqNum, field);
}

export function sequencedRecordToS2Json(r: S2SequencedRecord, format: S2Format): S2RecordJson {
  const out: S2RecordJson = { seq_num: BigInt(r.seq_num), timestamp: BigInt(r.timestamp) };
  if (r.headers.length > 0) {
    out.headers = r.headers.map((h, j) => [
      textOf(h.name, format, r.seq_num, `headers[${j}][0]`),
      textOf(h.value, format, r.seq_num, `headers[${j}][1]`),
    ]);
  }
  if (r.body.length > 0) out.body = textOf(r.body, format, r.seq_num, "body");
  return out;
}

export function readBatchToS2Json(batch: S2ReadBatch, format: S2Format) {
  const out: { records: S2RecordJson[]; tail?: S2PositionJson } = {
    records: batch.records.map((r) => sequencedRecordToS2Json(r, format)),
  };
  if (batch.tail) out.tail = positionToS2Json(batch.tail);
  return out;
}
