// Why a chunk could not be served from object storage. Every fault sends that chunk's range to
// the star's Read instead, and is counted in /metrics by its reason.

export type FaultReason =
  /** The object is not there (404): reclaimed after the plan, or never written. */
  | "missing"
  /** A check failed (CRC, length, layout, the plan's numbers): the bytes are not served. */
  | "corrupt"
  /** 401/403: an expired presigned URL, or credentials the store refuses. */
  | "forbidden"
  | "timeout"
  /** Connection refused or reset, a 5xx, or anything else the store answered. */
  | "unavailable"
  /** The gateway's chunk fetches in flight are at --readplan-loading-mb: this one is not made. */
  | "busy";

/** The reasons a whole plan is not used: the star's ReadPlan failed, or answered nonsense. */
export type PlanFallbackReason = "plan_failed";

export type FallbackReason = FaultReason | PlanFallbackReason;

export class ChunkFault extends Error {
  override readonly name = "ChunkFault";

  readonly reason: FaultReason;

  constructor(reason: FaultReason, message: string) {
    super(message);
    this.reason = reason;
  }
}

const TIMEOUT_CODES = new Set([
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "UND_ERR_CONNECT_TIMEOUT",
  "ETIMEDOUT",
  "TimeoutError",
]);

/** A transport failure as a fault: a timeout, or the store being unreachable. */
export function transportFault(err: unknown, what: string): ChunkFault {
  if (err instanceof ChunkFault) return err;
  const e = err as { code?: string; name?: string; message?: string };
  const code = e.code ?? e.name ?? "Error";
  const reason: FaultReason = TIMEOUT_CODES.has(code) ? "timeout" : "unavailable";
  return new ChunkFault(reason, `${what}: ${code}: ${e.message ?? String(err)}`);
}

/** An HTTP status other than success as a fault. */
export function statusFault(status: number, what: string): ChunkFault {
  if (status === 404) return new ChunkFault("missing", `${what}: HTTP 404`);
  if (status === 401 || status === 403)
    return new ChunkFault("forbidden", `${what}: HTTP ${status}`);
  if (status === 408 || status === 504) return new ChunkFault("timeout", `${what}: HTTP ${status}`);
  return new ChunkFault("unavailable", `${what}: HTTP ${status}`);
}
