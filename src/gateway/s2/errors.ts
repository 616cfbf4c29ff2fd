// S2's error model on the S2-compatible face: every failure leaves as S2 would answer it, `{code,
// message}` with the status S2 gives the code (the codes S2's SDKs retry on: 408, 429, 5xx and
// 409 transaction_conflict), an append condition miss as 412 `{"seq_num_mismatch": N}` or
// `{"fencing_token_mismatch": "<token>"}`, and a read past the tail as 416 `{"tail": {...}}`.
// Nova's errors (HttpError, star statuses, fleet failures) are translated by one table.
import { type ErrorCode, HttpError, toHttpError } from "../errors/index.ts";

/** S2's error codes and their statuses (S2's ErrorCode). */
export const S2_ERROR_STATUS = {
  access_token_not_found: 404,
  authn: 401,
  bad_frame: 400,
  bad_header: 400,
  bad_json: 400,
  bad_path: 400,
  bad_proto: 400,
  bad_query: 400,
  basin_deletion_pending: 409,
  basin_not_found: 404,
  client_hangup: 499,
  invalid: 422,
  not_implemented: 501,
  other: 500,
  permission_denied: 403,
  quota_exhausted: 403,
  rate_limited: 429,
  request_timeout: 408,
  resource_already_exists: 409,
  server_draining: 503,
  storage: 500,
  stream_deletion_pending: 409,
  stream_not_found: 404,
  transaction_conflict: 409,
  unavailable: 503,
  upstream_timeout: 504,
} as const;

export type S2ErrorCode = keyof typeof S2_ERROR_STATUS;

/** An error already in S2's terms: its code is one of S2's and its status S2's for that code. */
export class S2HttpError extends HttpError {
  override readonly name = "S2HttpError";
}

export function s2Error(
  code: S2ErrorCode,
  message: string,
  headers?: Record<string, string>,
): S2HttpError {
  return new S2HttpError(S2_ERROR_STATUS[code], code, message, headers ? { headers } : {});
}

/** A fencing miss with the token the stream has installed ("" when none is). */
export function fencingTokenMismatch(installed: string): S2HttpError {
  return new S2HttpError(412, "fencing_token_mismatch", "fencing token mismatch", {
    fields: { fencing_token_mismatch: installed },
  });
}

/** A response as S2 gives it: status, headers (Retry-After) and the JSON body. */
export interface S2ErrorReply {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

// Nova's code (docs/http-api.md) to S2's; the status is S2's for the code. Codes nova's API has
// and S2's does not are said by the nearest S2 code of the same retry class: every code has one
// (a code missing here would leave as S2's retryable `other`), the five toS2Error answers itself
// aside.
const FROM_NOVA: Readonly<
  Record<
    Exclude<
      ErrorCode,
      | "seq_num_mismatch"
      | "fencing_token_mismatch"
      | "range_not_satisfiable"
      | "unavailable"
      | "internal"
    >,
    S2ErrorCode
  >
> = {
  invalid_argument: "invalid",
  bad_base64: "invalid",
  not_utf8: "invalid",
  payload_too_large: "invalid",
  failed_precondition: "invalid",
  bad_json: "bad_json",
  bad_query: "bad_query",
  bad_header: "bad_header",
  bad_path: "bad_path",
  unsupported_media_type: "bad_header",
  unauthenticated: "authn",
  permission_denied: "permission_denied",
  bucket_not_found: "basin_not_found",
  stream_not_found: "stream_not_found",
  already_exists: "resource_already_exists",
  conflict: "transaction_conflict",
  resource_exhausted: "rate_limited",
  request_timeout: "request_timeout",
  cancelled: "client_hangup",
  unimplemented: "not_implemented",
  deadline_exceeded: "upstream_timeout",
  slow_consumer: "unavailable",
  not_found: "bad_path",
  // A closed stream takes no more records, nor does a producer's or writer's refused sequence
  // ever pass when sent again: not retryable, nothing appended.
  stream_closed: "invalid",
  producer_seq_gap: "invalid",
  producer_seq_stale: "invalid",
  producer_fenced: "invalid",
  writer_seq_regression: "invalid",
  content_type_mismatch: "invalid",
  bad_request: "bad_header",
  header_too_large: "bad_header",
  gone: "stream_not_found",
};

/** Any failure as S2's reply; `resource` decides a bare NOT_FOUND as nova's mapping does. */
export function toS2Error(
  err: unknown,
  ctx: { resource?: "bucket" | "stream" } = {},
): S2ErrorReply {
  const http = toHttpError(err, ctx);
  const headers = retryAfterOnly(http.headers);
  if (http instanceof S2HttpError) {
    if (http.code === "fencing_token_mismatch") return { status: 412, headers, body: http.fields };
    return { status: http.status, headers, body: { code: http.code, message: http.message } };
  }
  switch (http.code) {
    case "seq_num_mismatch":
      return {
        status: 412,
        headers,
        body: { seq_num_mismatch: http.fields.expected_seq_num },
      };
    case "fencing_token_mismatch":
      // Nova's detail says only whether a token is installed; routes that can look the token up
      // throw fencingTokenMismatch instead.
      return { status: 412, headers, body: { fencing_token_mismatch: "" } };
    case "range_not_satisfiable": {
      const tail = http.fields.tail as { seq_num: bigint; timestamp_ms: bigint } | undefined;
      return {
        status: 416,
        headers,
        body: tail
          ? { tail: { seq_num: tail.seq_num, timestamp: clampTime(tail.timestamp_ms) } }
          : {},
      };
    }
    case "unavailable":
      // Nova's 503 promises nothing about an append whose reply was lost; S2's `unavailable`
      // promises no side effects, so that case is S2's `other`.
      if (http.fields.outcome === "unknown") return reply("other", http.message, headers);
      return reply("unavailable", http.message, headers);
    case "internal":
      return reply("other", http.message, headers);
  }
  const code = FROM_NOVA[http.code as keyof typeof FROM_NOVA];
  if (code === undefined) return reply("other", http.message, headers);
  return reply(code, http.message, headers);
}

function reply(code: S2ErrorCode, message: string, headers: Record<string, string>): S2ErrorReply {
  return { status: S2_ERROR_STATUS[code], headers, body: { code, message } };
}

function retryAfterOnly(headers: Record<string, string> | undefined): Record<string, string> {
  const value = headers?.["retry-after"];
  return value === undefined ? {} : { "retry-after": value };
}

/** A tail's time in S2's unsigned field: nova's times before 1970 show as 0 there. */
function clampTime(ms: bigint): bigint {
  return ms < 0n ? 0n : ms;
}
