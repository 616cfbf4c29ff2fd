// An S2 append batch as nova's Append. S2's command records (one header with an empty name:
// ["", "fence"] with the token as body, ["", "trim"] with an 8-byte big-endian seq_num) are
// records of the stream for the star too (docs/commands.md): checked here for S2's answer, then
// appended with the batch, conditions and all.
import { isUtf8 } from "node:buffer";
import { MAX_FENCING_TOKEN_BYTES } from "../../contract/wire-limits.ts";
import type { AppendInput__Output } from "../../gen/s2/v1/AppendInput.ts";
import type { AppendBatchProto } from "../translate/index.ts";
import { s2Error } from "./errors.ts";
import { meteredBytes, S2_MAX_BATCH_METERED_BYTES, S2_MAX_BATCH_RECORDS } from "./metering.ts";
import { appendRecordFromS2, type S2AppendRecord } from "./records.ts";

export type S2AppendInput = AppendInput__Output;

/** The nova Append of an S2 batch; `commands` when it holds command records. */
export interface AppendPlan {
  batch: AppendBatchProto;
  commands: boolean;
}

export function planAppend(input: S2AppendInput): AppendPlan {
  const { records } = input;
  if (records.length === 0) throw s2Error("invalid", "records: a batch holds at least one record");
  if (records.length > S2_MAX_BATCH_RECORDS) {
    throw s2Error(
      "invalid",
      `records: ${records.length} records; a batch holds at most ${S2_MAX_BATCH_RECORDS}`,
    );
  }
  let metered = 0;
  for (const r of records) metered += meteredBytes(r);
  if (metered > S2_MAX_BATCH_METERED_BYTES) {
    throw s2Error(
      "invalid",
      `records: ${metered} metered bytes; a batch holds at most ${S2_MAX_BATCH_METERED_BYTES}`,
    );
  }
  let commands = false;
  const batch: AppendBatchProto = {
    records: records.map((r, i) => {
      const field = `records[${i}]`;
      const command = isCommand(r);
      if (command) {
        checkCommand(r, field);
        commands = true;
      }
      return appendRecordFromS2(r, field, command);
    }),
  };
  if (input.match_seq_num !== undefined) batch.match_seq_num = input.match_seq_num;
  if (input.fencing_token !== undefined) batch.fencing_token = fencingToken(input.fencing_token);
  return { batch, commands };
}

/** S2's mark of a command record: a header with an empty name. */
function isCommand(r: S2AppendRecord): boolean {
  return r.headers.some((h) => h.name.length === 0);
}

/** A command record is exactly one header, ["", "fence"] or ["", "trim"], and its body. */
function checkCommand(r: S2AppendRecord, field: string): void {
  const [op, ...rest] = r.headers;
  if (op === undefined || rest.length > 0 || op.name.length > 0) {
    throw s2Error("invalid", `${field}.headers: a command record has exactly one header, ["", op]`);
  }
  const name = op.value.toString("latin1");
  if (name === "fence") {
    if (!isUtf8(r.body)) throw s2Error("invalid", `${field}.body: a fencing token is UTF-8 text`);
    if (r.body.length > MAX_FENCING_TOKEN_BYTES) {
      throw s2Error(
        "invalid",
        `${field}.body: a fencing token is at most ${MAX_FENCING_TOKEN_BYTES} bytes, not ${r.body.length}`,
      );
    }
    return;
  }
  if (name === "trim") {
    if (r.body.length !== 8) {
      throw s2Error(
        "invalid",
        `${field}.body: a trim point is an 8-byte big-endian seq_num, not ${r.body.length} bytes`,
      );
    }
    return;
  }
  throw s2Error(
    "invalid",
    `${field}.headers: ${JSON.stringify(op.value.toString("utf8"))} is not a command; S2's are "fence" and "trim"`,
  );
}

function fencingToken(token: string): string {
  const size = Buffer.byteLength(token, "utf8");
  if (size > MAX_FENCING_TOKEN_BYTES) {
    throw s2Error(
      "invalid",
      `fencing_token: ${size} bytes; the limit is ${MAX_FENCING_TOKEN_BYTES} UTF-8 bytes`,
    );
  }
  return token;
}
