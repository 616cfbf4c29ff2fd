// What the fleet client throws: a star's gRPC status passed through with the context the HTTP
// layer needs to map it (StarCallError), or the fleet's own failures (FleetError).
import { Metadata, type ServiceError, status } from "@grpc/grpc-js";
import { findDetail } from "../../contract/proto/index.ts";

export type StatusName = keyof typeof status;

/** The fleet's own failures; all of them map to HTTP 503 (retryable). */
export type FleetErrorCode =
  /** NotOwner answers kept pointing elsewhere past the hop budget (ownership is moving). */
  | "redirects_exhausted"
  /** A star answered NotOwner without naming a leader. */
  | "leader_unknown"
  /** The stream's leader, as the stars name it, does not answer (down or restarting). */
  | "leader_unreachable"
  /** The client was configured without any star address. */
  | "no_stars"
  /** The client was closed. */
  | "closed";

export class FleetError extends Error {
  override readonly name = "FleetError";
  readonly code: FleetErrorCode;
  /** The star addresses asked, in order. */
  readonly hops: readonly string[];

  constructor(
    code: FleetErrorCode,
    message: string,
    options: { hops?: readonly string[]; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.code = code;
    this.hops = options.hops ?? [];
  }
}

/**
 * A gRPC status for one call (from the star, or from grpc-js for the transport). `details` is
 * the star's message and `metadata` its trailers (typed details: `findDetail`).
 */
export class StarCallError extends Error implements ServiceError {
  readonly code: status;
  readonly details: string;
  readonly metadata: Metadata;
  readonly method: string;
  /** The star that answered; undefined when none was asked. */
  readonly address: string | undefined;
  /**
   * The request may have reached a star and landed, and replaying it is not safe (an Append,
   * or a create without creation_token): the client must check before retrying.
   */
  readonly outcomeUnknown: boolean;

  constructor(
    init: { code: status; details: string; metadata?: Metadata },
    context: { method: string; address?: string; outcomeUnknown?: boolean; cause?: unknown },
  ) {
    const where = context.address === undefined ? "" : ` on star ${context.address}`;
    super(`${context.method}${where} failed with ${statusName(init.code)}: ${init.details}`, {
      cause: context.cause,
    });
    this.code = init.code;
    this.details = init.details;
    this.metadata = init.metadata ?? new Metadata();
    this.method = context.method;
    this.address = context.address;
    this.outcomeUnknown = context.outcomeUnknown ?? false;
  }
}

/** A CANCELLED StarCallError named AbortError, for a call the caller's signal aborted. */
export function abortError(
  method: string,
  address: string | undefined,
  reason: unknown,
  outcomeUnknown: boolean,
): StarCallError {
  const err = new StarCallError(
    { code: status.CANCELLED, details: "the request was cancelled by the caller" },
    { method, address, outcomeUnknown, cause: reason },
  );
  err.name = "AbortError";
  return err;
}

/** Whether a value is a gRPC error with a status (grpc-js's, or a StarCallError). */
export function isServiceError(err: unknown): err is ServiceError {
  return (
    err instanceof Error &&
    typeof (err as Partial<ServiceError>).code === "number" &&
    (err as Partial<ServiceError>).metadata instanceof Metadata
  );
}

/** The status's name, e.g. "UNAVAILABLE": a bounded label for metrics and messages. */
export function statusName(code: status): StatusName {
  return (status[code] as StatusName | undefined) ?? "UNKNOWN";
}

/**
 * The leader a NotOwner refusal names: "" when the star named none, undefined when the status
 * is not a NotOwner refusal at all.
 */
export function notOwnerLeader(err: {
  code: status;
  metadata?: Metadata | undefined;
}): string | undefined {
  if (err.code !== status.FAILED_PRECONDITION) return undefined;
  return findDetail(err.metadata, "NotOwner")?.leader_address;
}

/**
 * The connection under the call was torn down, or the call's stream ended without a status
 * (grpc-js reports a GOAWAY or session error with HTTP/2 code 2 as INTERNAL "Received RST_STREAM
 * with code 2", and a star's forced shutdown as "... with code 0"), not a star's answer: a read
 * may be taken up again, and any call is a retryable unavailable (an append's outcome unknown).
 * See channel-pool.ts for when a star does this.
 */
export function connectionBroken(err: { code: status; details: string }): boolean {
  return err.code === status.INTERNAL && /^Received RST_STREAM with code [02]\b/.test(err.details);
}

/**
 * A failed hop's status as what happened to the call: grpc-js reports a connection torn down
 * under it, or a stream a star ended without a status, as INTERNAL (connectionBroken) and a
 * star's own reset as CANCELLED, though neither is the star's answer nor the caller's cancel. Both are the star being unavailable, a
 * call it may have acted on.
 */
export function hopStatus<S extends { code: status; details: string }>(
  failed: S,
  callerAborted: boolean,
): S {
  if (connectionBroken(failed)) {
    return {
      ...failed,
      code: status.UNAVAILABLE,
      details: `the star's connection ended before the call did (${failed.details})`,
    };
  }
  if (failed.code === status.CANCELLED && !callerAborted) {
    return {
      ...failed,
      code: status.UNAVAILABLE,
      details: `the star cancelled the call (${failed.details})`,
    };
  }
  return failed;
}
