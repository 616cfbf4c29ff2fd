// Jittered exponential backoff: the ceiling doubles per attempt up to a cap, and the delay is
// drawn from its upper half, so many sessions failing over at once do not retry in step.

export interface Backoff {
  baseMs: number;
  maxMs: number;
}

export const DEFAULT_BACKOFF: Backoff = { baseMs: 50, maxMs: 2_000 };

/** The delay before retry number `attempt` (0 for the first); `random` is in [0, 1). */
export function backoffDelayMs(attempt: number, backoff: Backoff, random = Math.random): number {
  const ceiling = Math.min(backoff.maxMs, backoff.baseMs * 2 ** Math.min(attempt, 30));
  return ceiling / 2 + random() * (ceiling / 2);
}

/** A value drawn uniformly from [min, max), for jittered intervals. */
export function jitter(min: number, max: number, random = Math.random): number {
  return min + random() * (max - min);
}
