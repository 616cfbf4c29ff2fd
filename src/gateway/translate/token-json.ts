// ExchangeToken: an api key (key_id, secret) for a short-lived token narrowed to a bucket or scope.
import type { ExchangeTokenRequest } from "../../gen/nova/v1/ExchangeTokenRequest.ts";
import type { ExchangeTokenResponse__Output } from "../../gen/nova/v1/ExchangeTokenResponse.ts";
import { invalidArgument } from "../errors/index.ts";
import { asObject, asString, asWellFormed, rejectUnknown } from "./fields.ts";
import { type ExactInt, type Int64Mode, readUint32, writeExactInt } from "./integers.ts";
import { checkBucketName } from "./names.ts";

const TOKEN_FIELDS: ReadonlySet<string> = new Set([
  "key_id",
  "secret",
  "bucket",
  "scope",
  "ttl_seconds",
]);

/** `{ key_id, secret, bucket | scope, ttl_seconds? }`; ttl 0 or absent: the star's default. */
export function tokenRequestFromJson(body: unknown): ExchangeTokenRequest {
  const obj = asObject(body, "body", invalidArgument);
  rejectUnknown(obj, TOKEN_FIELDS, "", invalidArgument);
  const request: ExchangeTokenRequest = {
    key_id: nonEmpty(obj.key_id, "key_id"),
    secret: nonEmpty(obj.secret, "secret"),
  };
  if ((obj.bucket === undefined) === (obj.scope === undefined)) {
    throw invalidArgument("bucket|scope", "give exactly one of the two");
  }
  if (obj.bucket !== undefined)
    request.bucket = checkBucketName(obj.bucket, "bucket", invalidArgument);
  else request.scope = nonEmpty(obj.scope, "scope");
  if (obj.ttl_seconds !== undefined) {
    request.ttl_seconds = readUint32(obj.ttl_seconds, "ttl_seconds", invalidArgument);
  }
  return request;
}

function nonEmpty(value: unknown, field: string): string {
  if (value === undefined) throw invalidArgument(field, "is required");
  const s = asWellFormed(asString(value, field, invalidArgument), field, invalidArgument);
  if (s === "") throw invalidArgument(field, "must not be empty");
  return s;
}

export function tokenResponseToJson(
  r: ExchangeTokenResponse__Output,
  mode: Int64Mode,
): { token: string; expires_at_unix_ms: ExactInt } {
  return { token: r.token, expires_at_unix_ms: writeExactInt(r.expires_at_unix_ms, mode) };
}
