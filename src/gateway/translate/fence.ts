// Fencing tokens: the Fence body in, and the token check shared with appends.
import { MAX_FENCING_TOKEN_BYTES } from "../../contract/wire-limits.ts";
import { invalidArgument } from "../errors/index.ts";
import { asObject, asString, asWellFormed, rejectUnknown } from "./fields.ts";

/** Nova's cap on a fencing token, in UTF-8 bytes. */

/** A fencing token: plain text whatever the record format, at most 48 UTF-8 bytes. */
export function readFencingToken(value: unknown, field: string): string {
  const token = asWellFormed(asString(value, field, invalidArgument), field, invalidArgument);
  const size = Buffer.byteLength(token, "utf8");
  if (size > MAX_FENCING_TOKEN_BYTES) {
    throw invalidArgument(
      field,
      `is ${size} bytes; the limit is ${MAX_FENCING_TOKEN_BYTES} UTF-8 bytes`,
    );
  }
  return token;
}

const FENCE_FIELDS: ReadonlySet<string> = new Set(["fencing_token"]);

/** The Fence body `{ fencing_token }`, the token to install; `""` clears it. */
export function fenceBodyFromJson(body: unknown): { fencing_token: string } {
  const obj = asObject(body, "body", invalidArgument);
  rejectUnknown(obj, FENCE_FIELDS, "", invalidArgument);
  if (obj.fencing_token === undefined) {
    throw invalidArgument("fencing_token", 'is required ("" clears the token)');
  }
  return { fencing_token: readFencingToken(obj.fencing_token, "fencing_token") };
}
