// The Trim body: `{ seq_num }` or `{ timestamp_ms }`, to the proto's `point` oneof.
import { invalidArgument } from "../errors/index.ts";
import { asObject, rejectUnknown } from "./fields.ts";
import { INT64, readExactInt, UINT64 } from "./integers.ts";

export type TrimPoint = { seq_num: string } | { timestamp_ms: string };

const TRIM_FIELDS: ReadonlySet<string> = new Set(["seq_num", "timestamp_ms"]);

/** Exactly one of seq_num (uint64) or timestamp_ms (int64: a point before every record is fine). */
export function trimBodyFromJson(body: unknown): TrimPoint {
  const obj = asObject(body, "body", invalidArgument);
  rejectUnknown(obj, TRIM_FIELDS, "", invalidArgument);
  const { seq_num, timestamp_ms } = obj;
  if ((seq_num === undefined) === (timestamp_ms === undefined)) {
    throw invalidArgument("seq_num|timestamp_ms", "give exactly one of the two");
  }
  if (seq_num !== undefined) {
    return { seq_num: readExactInt(seq_num, UINT64, "seq_num", invalidArgument).toString() };
  }
  return {
    timestamp_ms: readExactInt(timestamp_ms, INT64, "timestamp_ms", invalidArgument).toString(),
  };
}
