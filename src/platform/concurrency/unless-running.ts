// Periodic work (a settling round, a retention round) started on a timer: a round that outlasts
// the interval would otherwise be overlapped by the next, repeating its storage requests, and
// its failure be reported by each caller that joined it.

/** `task` wrapped so that a call while a run is in flight does nothing (it resolves at once). */
export function unlessRunning(task: () => Promise<void>): () => Promise<void> {
  let running = false;
  return async () => {
    if (running) return;
    running = true;
    try {
      await task();
    } finally {
      running = false;
    }
  };
}
