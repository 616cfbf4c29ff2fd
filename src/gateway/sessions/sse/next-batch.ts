// How SSE sessions (nova's and S2's) read their source: stopped with the client, and the next
// batch raced against a timer (pings, wait deadlines) and a wake-up (a drain request).
import { raceWatched, type Watched } from "../../../platform/concurrency/index.ts";
import type { SourceBatch } from "../sources/index.ts";

/** The source's next batch, to be raced and awaited when it wins. */
export function pullNext(it: AsyncIterator<SourceBatch>): Promise<IteratorResult<SourceBatch>> {
  const next = it.next();
  // An abort's rejection may land after the session ended, when nobody awaits it.
  next.catch(() => {});
  return next;
}

/**
 * The first of `pending` (one read, or one per stream of a multiplexed session, the first given
 * winning when several are ready), the timer, or the wake-up. `setWake` gets the function that
 * wakes the race with `wake` (and undefined once it is over). A read stays pending across many
 * races (its batches may reach the socket by the hub's tap): it is watched, never raced itself.
 */
export function raceNext<T, W extends string>(
  pending: readonly Watched<T>[],
  delayMs: number,
  wake: W,
  setWake: (wakeUp: (() => void) | undefined) => void,
): Promise<T | "timer" | W> {
  return raceWatched<T, "timer" | W>(pending, (settle) => {
    const timer = setTimeout(() => settle("timer"), Math.max(0, delayMs));
    setWake(() => settle(wake));
    return () => {
      clearTimeout(timer);
      setWake(undefined);
    };
  });
}

/** Stops the session's source (`stop`) when the client goes away (`signal`). */
export function stopWith(signal: AbortSignal, stop: AbortController): void {
  const onAbort = () => stop.abort(signal.reason);
  if (signal.aborted) onAbort();
  signal.addEventListener("abort", onAbort, { once: true });
  stop.signal.addEventListener("abort", () => signal.removeEventListener("abort", onAbort));
}
