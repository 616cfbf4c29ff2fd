// Periodic work (a settling round, a retention round) started on a timer: a round that outlasts
// the interval would otherwise be overlapped by the next, repeating its storage requests.

/** `task` wrapped so that a call while a run is in flight gets that run instead of another. */
export function singleFlight(task: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  return () => {
    running ??= task().finally(() => {
      running = undefined;
    });
    return running;
  };
}
