// Periodic work (a settling round, a retention round) started on a timer: a round that outlasts
// the interval would otherwise be overlapped by the next, repeating its storage requests.

/** A task run at most once at a time; `running` while a run is in flight. */
export interface SingleFlight {
  (): Promise<void>;
  readonly running: boolean;
}

/** `task` wrapped so that a call while a run is in flight gets that run instead of another. */
export function singleFlight(task: () => Promise<void>): SingleFlight {
  let running: Promise<void> | undefined;
  const run = () => {
    running ??= task().finally(() => {
      running = undefined;
    });
    return running;
  };
  return Object.defineProperty(run, "running", {
    get: () => running !== undefined,
  }) as SingleFlight;
}
