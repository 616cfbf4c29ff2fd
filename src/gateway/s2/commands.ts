// An S2 append batch as what nova does with it. S2 streams take command records (one header
// with an empty name: ["", "fence"] with the token as body, ["", "trim"] with an 8-byte
// big-endian seq_num): a batch of exactly one becomes nova's Fence or Trim verb. Nova cannot do a
// command atomically with data or with a condition, so such batches are refused, saying why.
import { isUtf8 } from "node:buffer";
import { MAX_FENCING_TOKEN_BYTES } from "../../contract/proto/index.ts";
import type { AppendInput__Output } from "../../gen/s2/v1/AppendInput.ts";
import type { AppendBatchProto } from "../translate/index.ts";
import { s2Error } from "./errors.ts";
import { meteredBytes, S2_MAX_BATCH_METERED_BYTES, S2_MAX_BATCH_RECORDS } from "./metering.ts";
import { appendRecordFromS2, type S2AppendRecord } from "./records.ts";

export type S2AppendInput = AppendInput__Output;

export type AppendPlan =
  | { kind: "append"; batch: AppendBatchProto }
  | { kind: "fence"; token: string }
  | { kind: "trim"; seqNum: string };

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
  const commands = records.filter(isCommand).length;
  if (commands === 0) {
    const batch: AppendBatchProto = {
      records: records.map((r, i) => appendRecordFromS2(r, `records[${i}]`)),
    };
    if (input.match_seq_num !== undefined) batch.match_seq_num = input.match_seq_num;
    if (input.fencing_token !== undefined) batch.fencing_token = fencingToken(input.fencing_token);
    return { kind: "append", batch };
  }
  if (records.length > 1) {
    throw s2Error(
      "invalid",
      "records: a command record (fence or trim) must be alone in its batch: nova applies commands apart from appends, so a batch mixing them could not land atomically",
    );
  }
  if (input.match_seq_num !== undefined || input.fencing_token !== undefined) {
    const condition = input.match_seq_num !== undefined ? "match_seq_num" : "fencing_token";
    throw s2Error(
      "invalid",
      `${condition}: a command record cannot be conditioned: nova's Fence and Trim cannot check a condition atomically with the command`,
    );
  }
  return command(records[0] as S2AppendRecord);
}

/** S2's mark of a command record: exactly one header, with an empty name. */
function isCommand(r: S2AppendRecord): boolean {
  return r.headers.some((h) => h.name.length === 0);
}

function command(r: S2AppendRecord): AppendPlan {
  const [op, ...rest] = r.headers;
  if (op === undefined || rest.length > 0 || op.name.length > 0) {
    throw s2Error(
      "invalid",
      'records[0].headers: a command record has exactly one header, ["", op]',
    );
  }
  const name = op.value.toString("latin1");
  if (name === "fence") {
    if (!isUtf8(r.body)) throw s2Error("invalid", "records[0].body: a fencing token is UTF-8 text");
    if (r.body.length > MAX_FENCING_TOKEN_BYTES) {
      throw s2Error(
        "invalid",
        `records[0].body: a fencing token is at most ${MAX_FENCING_TOKEN_BYTES} bytes, not ${r.body.length}`,
      );
    }
    return { kind: "fence", token: r.body.toString("utf8") };
  }
  if (name === "trim") {
    if (r.body.length !== 8) {
      throw s2Error(
        "invalid",
        `records[0].body: a trim point is an 8-byte big-endian seq_num, not ${r.body.length} bytes`,
      );
    }
    return { kind: "trim", seqNum: r.body.readBigUInt64BE(0).toString() };
  }
  throw s2Error(
    "invalid",
    `records[0].headers: ${JSON.stringify(op.value.toString("utf8"))} is not a command; S2's are "fence" and "trim"`,
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
