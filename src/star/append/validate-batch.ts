// Batch-atomic validation (dataplane.proto, Append): one bad record refuses the whole batch
// with INVALID_ARGUMENT naming the record and the rule. The counts (records in a batch, headers
// in a record) are checked as the request is decoded (service/append-guard.ts). A header name is never empty, but in a
// command record (command-records.ts).
import { contentBytes, type StoredRecord } from "../../contract/codec/index.ts";
import type { AppendRecord__Output } from "../../gen/nova/v1/AppendRecord.ts";
import type { TimestampingMode } from "../../gen/nova/v1/TimestampingMode.ts";
import { invalidArgument } from "../errors.ts";
import type { StarLimits } from "../limits.ts";
import { type Command, CommandError, commandOf } from "./command-records.ts";

/** A validated batch: stored records plus the client's largest offered stamp, if any. */
export interface ValidBatch {
  records: StoredRecord[];
  contentBytes: number;
  maxClientTimestamp: bigint | undefined;
  /** Its command records' commands, in record order; absent when it has none. */
  commands?: Command[];
}

type Limits = Pick<StarLimits, "maxRecordBytes" | "maxBatchBytes">;

export function validateBatch(
  input: AppendRecord__Output[],
  mode: TimestampingMode,
  limits: Limits,
): ValidBatch {
  if (input.length === 0) throw invalidArgument("a batch needs at least one record");
  const records: StoredRecord[] = [];
  let total = 0;
  let maxClientTimestamp: bigint | undefined;
  let commands: Command[] | undefined;
  input.forEach((rec, i) => {
    let command: Command | undefined;
    try {
      command = commandOf(rec);
    } catch (err) {
      if (err instanceof CommandError) throw invalidArgument(`record ${i}: ${err.message}`);
      throw err;
    }
    if (command) {
      commands ??= [];
      commands.push(command);
    }
    const stored: StoredRecord = { headers: rec.headers, body: rec.body };
    const size = contentBytes(stored);
    if (size > limits.maxRecordBytes) {
      throw invalidArgument(
        `record ${i}: ${size} content bytes, over the per-record cap of ${limits.maxRecordBytes}`,
      );
    }
    total += size;
    const stamp = rec.timestamp_ms === undefined ? undefined : BigInt(rec.timestamp_ms);
    if (mode === "TIMESTAMPING_MODE_CLIENT_REQUIRE" && stamp === undefined) {
      throw invalidArgument(`record ${i}: the stream requires a client timestamp_ms`);
    }
    if (mode === "TIMESTAMPING_MODE_ARRIVAL" && stamp !== undefined) {
      throw invalidArgument(
        `record ${i}: the stream stamps arrival time and refuses client timestamp_ms`,
      );
    }
    if (stamp !== undefined && (maxClientTimestamp === undefined || stamp > maxClientTimestamp)) {
      maxClientTimestamp = stamp;
    }
    records.push(stored);
  });
  if (total > limits.maxBatchBytes) {
    throw invalidArgument(
      `batch of ${total} content bytes is over the per-batch cap of ${limits.maxBatchBytes}`,
      [
        {
          type: "BatchTooLarge",
          value: { content_bytes: String(total), limit: String(limits.maxBatchBytes) },
        },
      ],
    );
  }
  return { records, contentBytes: total, maxClientTimestamp, ...(commands ? { commands } : {}) };
}

/**
 * The one timestamp a batch gets: the client's largest stamp (or arrival time), capped at
 * arrival unless the stream is uncapped, then clamped to at least the previous record's time.
 * Times are int64 throughout, negative ones included (data from before 1970, or an
 * application's own scale); a stream's first record has no previous time to be clamped to.
 */
export function batchTimestamp(
  maxClientTimestamp: bigint | undefined,
  arrivalMs: bigint,
  uncapped: boolean,
  previousMs: bigint | undefined,
): bigint {
  let ts = maxClientTimestamp ?? arrivalMs;
  if (!uncapped && ts > arrivalMs) ts = arrivalMs;
  return previousMs !== undefined && ts < previousMs ? previousMs : ts;
}
