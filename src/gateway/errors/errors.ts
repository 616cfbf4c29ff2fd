// The gateway's error model: every failure is an HttpError, rendered as the contract's error body
// { code, message, retryable, ...typed fields } in responses, SSE `error` events and NDJSON lines.
import { type Metadata, status } from "@grpc/grpc-js";
import { findDetail } from "../../contract/proto/index.ts";

export interface HttpErrorOptions {
  retryable?: boolean;
  fields?: Record<string, unknown>;
  headers?: Record<string, string>;
  cause?: unknown;
}

/**
 * Every code of the error body on nova's face and the Durable Streams face (S2's face has S2's,
 * s2/errors.ts): the OpenAPI document lists these.
 */
export const ERROR_CODES = [
  "bad_json",
  "bad_query",
  "bad_header",
  "bad_path",
  "bad_base64",
  "bad_request",
  "header_too_large",
  "invalid_argument",
  "unauthenticated",
  "permission_denied",
  "bucket_not_found",
  "stream_not_found",
  "not_found",
  "gone",
  "already_exists",
  "conflict",
  "seq_num_mismatch",
  "fencing_token_mismatch",
  "failed_precondition",
  "producer_seq_gap",
  "producer_seq_stale",
  "producer_fenced",
  "writer_seq_regression",
  "content_type_mismatch",
  "stream_closed",
  "request_timeout",
  "payload_too_large",
  "unsupported_media_type",
  "range_not_satisfiable",
  "not_utf8",
  "resource_exhausted",
  "slow_consumer",
  "cancelled",
  "internal",
  "unimplemented",
  "unavailable",
  "deadline_exceeded",
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export class HttpError extends Error {
  readonly status: number;
  /** One of ERROR_CODES; on S2's face one of S2's (S2HttpError). */
  readonly code: string;
  readonly retryable: boolean;
  /** Typed fields merged into the body; int64/uint64 values are bigint. */
  readonly fields: Record<string, unknown>;
  readonly headers?: Record<string, string>;

  constructor(status: number, code: string, message: string, options: HttpErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "HttpError";
    this.status = status;
    this.code = code;
    this.retryable = options.retryable ?? false;
    this.fields = options.fields ?? {};
    if (options.headers !== undefined) this.headers = options.headers;
  }
}

/**
 * Whether an answer is a failure of the gateway or its stars, logged at error: every 5xx but 501,
 * which says what this deployment does not serve (ExchangeToken on a star without a signing key,
 * an S2 verb nova has no counterpart for) and is an answer, in the request's own log line.
 */
export function isServerFailure(status: number): boolean {
  return status >= 500 && status !== 501;
}

export interface ErrorBody {
  code: string;
  message: string;
  retryable: boolean;
  [field: string]: unknown;
}

/** What of a message or a `field` an error body quotes: they may echo a client's input whole. */
export const MAX_QUOTED_CHARS = 1024;

/** `text` cut to MAX_QUOTED_CHARS, saying how long it was. */
function quoted(text: string): string {
  if (text.length <= MAX_QUOTED_CHARS) return text;
  return `${text.slice(0, MAX_QUOTED_CHARS)}... (${text.length} characters in all)`;
}

/** The error body. With `int64: "string"` every bigint field (deeply) becomes a decimal string. */
export function errorBody(e: HttpError, int64: "number" | "string" = "number"): ErrorBody {
  const fields = (int64 === "string" ? bigintsToStrings(e.fields) : e.fields) as Record<
    string,
    unknown
  >;
  const field = typeof fields.field === "string" ? { field: quoted(fields.field) } : {};
  return {
    code: e.code,
    message: quoted(e.message),
    retryable: e.retryable,
    ...fields,
    ...field,
  };
}

function bigintsToStrings(v: unknown): unknown {
  if (typeof v === "bigint") return v.toString();
  if (Array.isArray(v)) return v.map(bigintsToStrings);
  if (v !== null && typeof v === "object") {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, bigintsToStrings(x)]));
  }
  return v;
}

/** Makes the error for one named input field; the message always starts with the field. */
export type FieldError = (field: string, reason: string) => HttpError;

const fieldError =
  (status: number, code: ErrorCode): FieldError =>
  (field, reason) =>
    new HttpError(status, code, `${field}: ${reason}`, { fields: { field } });

/** A body field the gateway refuses (shape, range, limits). */
export const invalidArgument: FieldError = fieldError(400, "invalid_argument");
export const badQuery: FieldError = fieldError(400, "bad_query");
export const badHeader: FieldError = fieldError(400, "bad_header");
export const badPath: FieldError = fieldError(400, "bad_path");
export const badBase64: FieldError = fieldError(400, "bad_base64");

/** Unparseable JSON; `position` is the character offset where parsing stopped. */
export function badJson(message: string, position?: number): HttpError {
  return new HttpError(400, "bad_json", message, {
    fields: position === undefined ? {} : { position },
  });
}

/** The field names the record (by index) that broke the limit. */
export function payloadTooLarge(field: string, reason: string): HttpError {
  return new HttpError(413, "payload_too_large", `${field}: ${reason}`, { fields: { field } });
}

export function unsupportedMediaType(contentType: string, accepted: readonly string[]): HttpError {
  return new HttpError(
    415,
    "unsupported_media_type",
    `content-type ${JSON.stringify(contentType)} is not supported; use ${accepted.join(" or ")}`,
  );
}

/** A request body sent compressed: read as it is, it would be stored as its compressed bytes. */
export function compressedBody(encoding: string): HttpError {
  return new HttpError(
    415,
    "unsupported_media_type",
    `content-encoding ${JSON.stringify(encoding)} is not supported for request bodies; send the body uncompressed`,
  );
}

/** A JSON or NDJSON body in a charset other than UTF-8, which is all the gateway reads. */
export function unsupportedCharset(charset: string): HttpError {
  return new HttpError(
    415,
    "unsupported_media_type",
    `charset ${JSON.stringify(charset)} is not supported; send UTF-8 (charset=utf-8, or none)`,
  );
}

/** A stored record whose bytes cannot be shown as `raw` text; never altered, never skipped. */
export function notUtf8(seqNum: bigint, field: string): HttpError {
  return new HttpError(
    422,
    "not_utf8",
    `record ${seqNum}: ${field} is not valid UTF-8; read it with ?format=base64`,
    { fields: { seq_num: seqNum, field } },
  );
}

export const DEFAULT_RETRY_AFTER_SECONDS = 1;

const retryAfter = (seconds: number) => ({ "retry-after": String(seconds) });

export function resourceExhausted(
  message: string,
  retryAfterSeconds = DEFAULT_RETRY_AFTER_SECONDS,
  fields: Record<string, unknown> = {},
): HttpError {
  return new HttpError(429, "resource_exhausted", message, {
    retryable: true,
    headers: retryAfter(retryAfterSeconds),
    fields,
  });
}

export interface UnavailableOptions {
  retryAfterSeconds?: number;
  /** The request reached a star and the reply was lost: an append may have landed. */
  outcomeUnknown?: boolean;
}

/** Refused by the gateway itself, before any star: the caller may not do this from here. */
export function permissionDenied(message: string): HttpError {
  return new HttpError(403, "permission_denied", message);
}

/** A request whose body did not arrive in time; its connection cannot be reused. */
export function requestTimeout(message: string): HttpError {
  return new HttpError(408, "request_timeout", message, {
    retryable: true,
    headers: { connection: "close" },
  });
}

/** The same error, with its connection closed: the request's body was left unread. */
export function closingConnection(err: HttpError): HttpError {
  return new HttpError(err.status, err.code, err.message, {
    retryable: err.retryable,
    fields: err.fields,
    headers: { ...err.headers, connection: "close" },
    cause: err.cause,
  });
}

export function unavailable(message: string, options: UnavailableOptions = {}): HttpError {
  return new HttpError(503, "unavailable", message, {
    retryable: true,
    headers: retryAfter(options.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS),
    fields: options.outcomeUnknown ? { outcome: "unknown" } : {},
  });
}

/** Gateway or star failures: the message never carries internals (addresses, stack traces). */
export function internal(cause?: unknown): HttpError {
  return new HttpError(500, "internal", "internal error", { cause });
}

/** A match_seq_num miss, from a unary append or an AppendSession ack. */
export function seqNumMismatch(expectedSeqNum: string | bigint): HttpError {
  const expected = BigInt(expectedSeqNum);
  return new HttpError(
    412,
    "seq_num_mismatch",
    `match_seq_num does not match the tail: the next seq_num is ${expected}`,
    { fields: { expected_seq_num: expected } },
  );
}

export interface GrpcErrorLike {
  code: number;
  details?: string;
  metadata?: Metadata;
}

export interface GrpcErrorContext {
  /** What the call addressed: decides NOT_FOUND's code when the star's details do not. */
  resource?: "bucket" | "stream";
  /** The call was sent and its reply lost (an append): UNAVAILABLE and DEADLINE_EXCEEDED say so. */
  outcomeUnknown?: boolean;
}

/** Maps a star's gRPC status to the contract's HTTP error (the table in docs/http-api.md). */
export function fromGrpcError(err: GrpcErrorLike, ctx: GrpcErrorContext = {}): HttpError {
  // 4xx messages come from the star and are meant for the client; 5xx messages are ours.
  const said = err.details || "no detail given";
  const outcome = ctx.outcomeUnknown ? { outcome: "unknown" } : {};
  switch (err.code) {
    case status.INVALID_ARGUMENT:
      // The batch cap answers 413 whichever layer finds it (the gateway's own check is 413 too).
      if (findDetail(err.metadata, "BatchTooLarge")) return payloadTooLarge("records", said);
      return new HttpError(400, "invalid_argument", said);
    case status.UNAUTHENTICATED:
      return new HttpError(401, "unauthenticated", said);
    case status.PERMISSION_DENIED:
      return new HttpError(403, "permission_denied", said);
    case status.NOT_FOUND:
      return new HttpError(404, `${notFoundResource(err, ctx)}_not_found`, said);
    case status.ALREADY_EXISTS:
      return new HttpError(409, "already_exists", said);
    case status.ABORTED:
      return new HttpError(409, "conflict", said, { retryable: true });
    case status.FAILED_PRECONDITION:
      return failedPrecondition(err, said);
    case status.OUT_OF_RANGE:
      return rangeNotSatisfiable(said, findDetail(err.metadata, "TailDetail")?.tail ?? undefined);
    case status.RESOURCE_EXHAUSTED:
      return starResourceExhausted(err, said);
    case status.CANCELLED:
      return new HttpError(499, "cancelled", "the request was cancelled");
    case status.UNIMPLEMENTED:
      return new HttpError(501, "unimplemented", said);
    case status.UNAVAILABLE:
      // A star's log the read needs is damaged: the star names the object, for the client.
      if (findDetail(err.metadata, "LogDamaged")) return unavailable(said);
      return unavailable("the star is unavailable; retry", ctx);
    case status.DEADLINE_EXCEEDED:
      return new HttpError(504, "deadline_exceeded", "the star did not answer in time; retry", {
        retryable: true,
        fields: outcome,
      });
    default:
      // INTERNAL, UNKNOWN, DATA_LOSS and anything unexpected.
      return internal(err);
  }
}

function notFoundResource(err: GrpcErrorLike, ctx: GrpcErrorContext): "bucket" | "stream" {
  // The star names what is missing in a typed detail: a stream call on a missing bucket is
  // bucket_not_found. Without one, the addressed resource; streams by default.
  const missing = findDetail(err.metadata, "NotFoundDetail")?.resource;
  if (missing === "RESOURCE_BUCKET") return "bucket";
  if (missing === "RESOURCE_STREAM") return "stream";
  return ctx.resource ?? "stream";
}

function failedPrecondition(err: GrpcErrorLike, said: string): HttpError {
  const mismatch = findDetail(err.metadata, "SeqNumMismatch");
  if (mismatch) return seqNumMismatch(String(mismatch.expected_seq_num ?? "0"));
  const fencing = findDetail(err.metadata, "FencingTokenMismatch");
  if (fencing) {
    return new HttpError(412, "fencing_token_mismatch", said, {
      fields: { token_installed: fencing.token_installed ?? false },
    });
  }
  const producer = producerError(err, said);
  if (producer) return producer;
  // A NotOwner the gateway could not follow (redirects exhausted) is the 503 row of the table.
  if (findDetail(err.metadata, "NotOwner")) {
    return unavailable("the stream's leader could not be reached; retry");
  }
  return new HttpError(409, "failed_precondition", said);
}

/** The idempotent-producer refusals and a closed stream (docs/producers.md); none retryable. */
function producerError(err: GrpcErrorLike, said: string): HttpError | undefined {
  const gap = findDetail(err.metadata, "ProducerSeqGap");
  if (gap) {
    return new HttpError(409, "producer_seq_gap", said, {
      fields: {
        expected_seq: BigInt(String(gap.expected_seq ?? 0)),
        received_seq: BigInt(String(gap.received_seq ?? 0)),
        unknown_producer: gap.unknown_producer ?? false,
      },
    });
  }
  const stale = findDetail(err.metadata, "ProducerSeqStale");
  if (stale) {
    return new HttpError(409, "producer_seq_stale", said, {
      fields: { last_seq: BigInt(String(stale.last_seq ?? 0)) },
    });
  }
  const fenced = findDetail(err.metadata, "ProducerFenced");
  if (fenced) {
    return new HttpError(403, "producer_fenced", said, {
      fields: { current_epoch: BigInt(String(fenced.current_epoch ?? 0)) },
    });
  }
  const regression = findDetail(err.metadata, "WriterSeqRegression");
  if (regression) {
    return new HttpError(409, "writer_seq_regression", said, {
      fields: { last_writer_seq: regression.last_writer_seq ?? "" },
    });
  }
  const type = findDetail(err.metadata, "ContentTypeMismatch");
  if (type) {
    return new HttpError(409, "content_type_mismatch", said, {
      fields: { stream_content_type: type.stream_content_type ?? "" },
    });
  }
  const closed = findDetail(err.metadata, "StreamClosed");
  if (closed) {
    return new HttpError(409, "stream_closed", said, {
      fields: closed.tail ? { tail: exactPosition(closed.tail) } : {},
    });
  }
  return undefined;
}

function starResourceExhausted(err: GrpcErrorLike, said: string): HttpError {
  // A stream's throughput cap says when the batch would go through: Retry-After in whole
  // seconds, rounded up, and the exact figures for programs.
  const cap = findDetail(err.metadata, "ThroughputExceeded");
  if (!cap) return resourceExhausted(said);
  const retryAfterMs = BigInt(String(cap.retry_after_ms ?? 0));
  const seconds = Math.max(1, Math.ceil(Number(retryAfterMs) / 1000));
  return resourceExhausted(said, seconds, {
    limit_bytes_per_second: BigInt(String(cap.limit_bytes_per_second ?? 0)),
    retry_after_ms: retryAfterMs,
  });
}

/** 416 with the stream's tail, when known, as exact integers. */
export function rangeNotSatisfiable(
  message: string,
  tail: { seq_num?: unknown; timestamp_ms?: unknown } | undefined,
): HttpError {
  return new HttpError(416, "range_not_satisfiable", message, {
    fields: tail ? { tail: exactPosition(tail) } : {},
  });
}

function exactPosition(p: { seq_num?: unknown; timestamp_ms?: unknown }) {
  return {
    seq_num: BigInt(String(p.seq_num ?? 0)),
    timestamp_ms: BigInt(String(p.timestamp_ms ?? 0)),
  };
}
