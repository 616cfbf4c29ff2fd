// Where a read spent its time, for `Server-Timing`: asking for plans, waiting on object
// storage, and reading through the star. A client sees which path served it.
export interface Timings {
  planMs: number;
  s3Ms: number;
  starMs: number;
}

export const newTimings = (): Timings => ({ planMs: 0, s3Ms: 0, starMs: 0 });

/** Runs `work`, adding its duration to `timings[field]`. */
export async function timed<T>(
  timings: Timings,
  field: keyof Timings,
  work: () => Promise<T>,
): Promise<T> {
  const t0 = performance.now();
  try {
    return await work();
  } finally {
    timings[field] += performance.now() - t0;
  }
}

const ms = (n: number) => Math.round(n * 100) / 100;

export function serverTiming(t: Timings): string {
  return `plan;dur=${ms(t.planMs)}, s3;dur=${ms(t.s3Ms)}, star;dur=${ms(t.starMs)}`;
}
