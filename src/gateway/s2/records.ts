// Records, positions and acks between S2's messages (the shapes of proto/s2/v1/s2.proto, which
// the JSON and protobuf bodies of the S2 face both decode to) and nova's. Pure: no I/O.
import { MAX_HEADERS_PER_RECORD } from "../../contract/wire-limits.ts";
import type { Position__Output } from "../../gen/nova/v1/Position.ts";
import type { Record__Output } from "../../gen/nova/v1/Record.ts";
import type { AppendAck__Output } from "../../gen/s2/v1/AppendAck.ts";
import type { AppendRecord__Output } from "../../gen/s2/v1/AppendRecord.ts";
import type { ReadBatch__Output } from "../../gen/s2/v1/ReadBatch.ts";
import type { SequencedRecord__Output } from "../../gen/s2/v1/SequencedRecord.ts";
import type { StreamPosition__Output } from "../../gen/s2/v1/StreamPosition.ts";
import { type AppendAckInput, type AppendRecordProto, INT64 } from "../translate/index.ts";
import { s2Error } from "./errors.ts";

export type S2Position = StreamPosition__Output;
export type S2AppendRecord = AppendRecord__Output;
export type S2SequencedRecord = SequencedRecord__Output;
export type S2ReadBatch = ReadBatch__Output;
export type S2AppendAck = AppendAck__Output;

/**
 * A nova time (int64 ms) in S2's unsigned field. A time before 1970 has no S2 form: refused
 * rather than shown as another time (docs/s2-compat.md).
 */
export function timeToS2(ms: string, what: string): string {
  if (ms.startsWith("-")) {
    throw s2Error(
      "invalid",
      `${what} has timestamp ${ms}, before 1970, which S2's unsigned timestamps cannot show; read it through nova's API`,
    );
  }
  return ms;
}

/** An S2 client's time (uint64 ms) as nova's int64; beyond int64 it is refused. */
export function timeFromS2(ms: string, field: string): string {
  if (BigInt(ms) > INT64.max) {
    throw s2Error("invalid", `${field}: ${ms} is beyond the largest timestamp, ${INT64.max}`);
  }
  return ms;
}

export function positionToS2(p: Position__Output | null | undefined, what = "tail"): S2Position {
  return {
    seq_num: p?.seq_num ?? "0",
    timestamp: timeToS2(p?.timestamp_ms ?? "0", what),
  };
}

export function appendAckToS2(ack: AppendAckInput): S2AppendAck {
  return {
    start: positionToS2(ack.start, "the ack's start"),
    end: positionToS2(ack.end, "the ack's end"),
    tail: positionToS2(ack.tail, "the tail"),
  };
}

export function sequencedRecordToS2(r: Record__Output): S2SequencedRecord {
  return {
    seq_num: r.seq_num,
    timestamp: timeToS2(r.timestamp_ms, `record ${r.seq_num}`),
    headers: r.headers.map((h) => ({ name: h.name, value: h.value })),
    body: r.body,
  };
}

export function readBatchToS2(
  records: readonly Record__Output[],
  tail: Position__Output | null | undefined,
): S2ReadBatch {
  const batch: S2ReadBatch = { records: records.map(sequencedRecordToS2) };
  if (tail) batch.tail = positionToS2(tail);
  return batch;
}

/**
 * One S2 record as nova's. S2's own rules that nova's contract shares are checked here too
 * (non-empty header names, at most 100 headers), so a refusal is S2's `invalid` naming the record;
 * `command`: a command record the caller checked, whose one header has the empty name.
 */
export function appendRecordFromS2(
  r: S2AppendRecord,
  field: string,
  command = false,
): AppendRecordProto {
  if (r.headers.length > MAX_HEADERS_PER_RECORD) {
    throw s2Error(
      "invalid",
      `${field}.headers: ${r.headers.length} headers; the limit is ${MAX_HEADERS_PER_RECORD}`,
    );
  }
  const headers = r.headers.map((h, j) => {
    if (h.name.length === 0 && !command) {
      throw s2Error(
        "invalid",
        `${field}.headers[${j}]: an empty header name marks a command record, which has that one header only`,
      );
    }
    return { name: h.name, value: h.value };
  });
  const record: AppendRecordProto = { body: r.body, headers };
  if (r.timestamp !== undefined) {
    record.timestamp_ms = timeFromS2(r.timestamp, `${field}.timestamp`);
  }
  return record;
}
