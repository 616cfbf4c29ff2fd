// How SSE sessions (nova's and S2's) wait on their source: the next batch, raced against a timer
// (pings, wait deadlines) and a wake-up (a drain request), whichever comes first.
import type { SourceBatch } from "./source.ts";

/** The source's next batch, to be raced and awaited when it wins. */
export function pullNext(it: AsyncIterator<SourceBatch>): Promise<IteratorResult<SourceBatch>> {
  const next = it.next();
  // An abort's rejection may land after the session ended, when nobody awaits it.
  next.catch(() => {});
  return next;
}

/** `setWake` gets the function that wakes the race with `wake` (and undefined once it is over). */
export function raceNext<W extends string>(
  pending: Promise<IteratorResult<SourceBatch>>,
  delayMs: number,
  wake: W,
  setWake: (wakeUp: (() => void) | undefined) => void,
): Promise<IteratorResult<SourceBatch> | "timer" | W> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    pending,
    new Promise<"timer">((resolve) => {
      timer = setTimeout(() => resolve("timer"), Math.max(0, delayMs));
    }),
    new Promise<W>((resolve) => {
      setWake(() => resolve(wake));
    }),
  ]).finally(() => {
    clearTimeout(timer);
    setWake(undefined);
  });
}
