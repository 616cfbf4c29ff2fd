// The NDJSON append session's lines: in, one AppendInput per line; out, one line per batch (its
// AppendAck, or its error body naming the line) and a final `{"end": ...}` line, so a response
// cut short is never mistaken for a finished one.
import { mediaType } from "../../contract/media-type.ts";
import { type ErrorBody, errorBody, type HttpError } from "../errors/index.ts";
import type { RecordFormat } from "./format.ts";
import type { Int64Mode } from "./integers.ts";
import { parseJsonBody } from "./json-body.ts";
import { stringifyJsonExact } from "./json-exact.ts";
import {
  type AppendAckInput,
  type AppendBatchProto,
  type AppendLimits,
  appendAckToJson,
  appendInputFromJson,
} from "./record-json.ts";

export const NDJSON_TYPE = "application/x-ndjson";

/** Whether a request's body is an NDJSON append session. */
export function isNdjson(contentType: string | undefined): boolean {
  return contentType !== undefined && mediaType(contentType) === NDJSON_TYPE;
}

/**
 * Why a session's response ended: `done` (the body ended and every batch was answered),
 * `error` (a batch's error line ended it), `draining` (the gateway is shutting down: batches
 * after the last answered one were not appended; send them again elsewhere).
 */
export type EndReason = "done" | "error" | "draining" | "idle";

/** Throws the HttpError a unary append body of this shape would get; returns if it has none. */
export type ShapeCheck = (value: unknown) => void;

/**
 * One line's AppendInput, with the errors of a JSON append body (400, 413): `checkShape` is the
 * same schema check a unary body passes (the route's compiled AppendInput).
 */
export function appendLineFromJson(
  bytes: Buffer,
  format: RecordFormat,
  limits: AppendLimits,
  checkShape: ShapeCheck,
): AppendBatchProto {
  const value = parseJsonBody(bytes);
  checkShape(value);
  return appendInputFromJson(value, format, limits);
}

export function ackLine(ack: AppendAckInput, mode: Int64Mode): string {
  return `${stringifyJsonExact(appendAckToJson(ack, mode))}\n`;
}

/** A batch's error body, with `line`: the request line it answers. */
export function errorLine(err: HttpError, lineNo: number, mode: Int64Mode): string {
  return `${stringifyJsonExact({ ...errorBody(err, mode), line: lineNo })}\n`;
}

/**
 * The last line of every session: why it ended, how many batches got a line, and the error when
 * the session failed with no batch of its own to blame (nothing was in flight).
 */
export function endLine(reason: EndReason, batches: number, error?: ErrorBody): string {
  const end = error === undefined ? { reason, batches } : { reason, batches, error };
  return `${stringifyJsonExact({ end })}\n`;
}
