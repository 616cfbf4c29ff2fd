// The throughput cap of one stream (throughput_max_bytes_per_second; 0 is unlimited), as a pure
// rule: a token bucket of one second of burst (capacity C = rate bytes) refilled at `rate` bytes
// a second. A batch of b content bytes needs min(b, C) tokens, so a batch above a second's budget
// still goes through once the bucket is full; it takes all b, and the bucket may go into debt
// that later batches wait for. A batch that would wait longer than the bound is refused, with
// the time after which it would not. Fences cost nothing but keep their place: nothing is ever
// released before an item admitted ahead of it. Times are milliseconds from an injected clock.

export interface ThroughputState {
  /** The rate the bucket fills at, bytes a second; 0 is unlimited. */
  readonly rate: number;
  /** Tokens (bytes) at `atMs`: at most `rate`, below 0 when in debt. */
  readonly level: number;
  readonly atMs: number;
  /** When the last admitted item is released: no later item is released before it. */
  readonly releaseMs: number;
}

/** A stream's state before its first append: the first call fills the bucket at its rate. */
export const INITIAL_THROUGHPUT: ThroughputState = {
  rate: 0,
  level: 0,
  atMs: Number.NEGATIVE_INFINITY,
  releaseMs: Number.NEGATIVE_INFINITY,
};

export interface BatchAsk {
  /** The stream's rate now, bytes a second; 0 is unlimited. */
  rate: number;
  /** The batch's content bytes. */
  bytes: number;
  nowMs: number;
  /** The longest a batch may be held; one that would wait longer is refused. */
  maxWaitMs: number;
}

export type Admission =
  | {
      admitted: true;
      /** How long to hold the item from now (0: release now). */
      delayMs: number;
      /** nowMs + delayMs. */
      releaseMs: number;
      state: ThroughputState;
    }
  | {
      admitted: false;
      /** After this long the same batch would be admitted within the bound (at least 1). */
      retryAfterMs: number;
    };

/** Rounding in the refill is forgiven up to this: a retry after `retryAfterMs` is admitted. */
const SLACK_MS = 1e-6;

/** The bucket at `nowMs`: refilled, or full again at a new rate. */
function refilled(state: ThroughputState, rate: number, nowMs: number): ThroughputState {
  if (rate !== state.rate) {
    // A new rate starts a new bucket, full; the release order is kept.
    return { rate, level: rate, atMs: nowMs, releaseMs: state.releaseMs };
  }
  if (rate === 0 || nowMs <= state.atMs) return state;
  const level = Math.min(rate, state.level + (rate * (nowMs - state.atMs)) / 1000);
  return { ...state, level, atMs: nowMs };
}

/** Admits a batch (with the delay to hold it for) or refuses it, leaving `state` as it was. */
export function admitBatch(state: ThroughputState, ask: BatchAsk): Admission {
  const { rate, bytes, nowMs, maxWaitMs } = ask;
  const bucket = refilled(state, rate, nowMs);
  let waitMs = 0;
  let level = bucket.level;
  if (rate > 0) {
    const need = Math.min(bytes, rate);
    waitMs = Math.max(0, ((need - bucket.level) * 1000) / rate);
    if (waitMs > maxWaitMs + SLACK_MS) {
      return { admitted: false, retryAfterMs: Math.max(1, Math.ceil(waitMs - maxWaitMs)) };
    }
    level -= bytes;
  }
  return release({ ...bucket, level }, nowMs, waitMs);
}

/** A fence costs no bytes and is never refused: it waits only for what was admitted before it. */
export function admitFence(
  state: ThroughputState,
  nowMs: number,
): Extract<Admission, { admitted: true }> {
  return release(state, nowMs, 0);
}

function release(
  state: ThroughputState,
  nowMs: number,
  waitMs: number,
): Extract<Admission, { admitted: true }> {
  const releaseMs = Math.max(nowMs + waitMs, state.releaseMs);
  return {
    admitted: true,
    delayMs: releaseMs - nowMs,
    releaseMs,
    state: { ...state, releaseMs },
  };
}
