// The statistics the benches print, in one place so that every bench's p50 and p99 mean the same.

/**
 * The q-quantile (0 <= q <= 1) of ascending `sorted`: its value at 0-based index ⌊q·n⌋, clamped
 * to the last, so the smallest value with more than q·n of the n values at or below it (the
 * upper one of two middle values for the median); NaN when empty. A value measured, never one
 * interpolated between two.
 */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
}
