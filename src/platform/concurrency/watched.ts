// Promise.race leaves a reaction on each promise it is given until that promise settles. A loop
// that races the same long-lived promise once per wait (a read that stays pending while its
// batches reach the socket another way, a session's stop) grows that promise's reactions, and
// what they hold, by one per wait for as long as it stays pending: about 300 bytes per wait, per
// subscriber, for as long as it is connected. A Watched promise has one reaction of its own, and
// each wait sets the one listener it calls when the promise settles.

type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** Something that settles once per wait, with one listener at a time: a Watched promise, or an object that is its own. */
export interface Watchable<T> {
  readonly settled: boolean;
  /** The value, or its failure thrown; only once settled. */
  take(): T;
  /** Calls `listener` once it settles, instead of any listener set before. */
  listen(listener: (() => void) | undefined): void;
}

export class Watched<T> implements Watchable<T> {
  #outcome: Outcome<T> | undefined;
  #listener: (() => void) | undefined;

  constructor(promise: Promise<T>) {
    promise.then(
      (value) => this.#settle({ ok: true, value }),
      (error: unknown) => this.#settle({ ok: false, error }),
    );
  }

  get settled(): boolean {
    return this.#outcome !== undefined;
  }

  /** The promise's value, or its rejection thrown; only once settled. */
  take(): T {
    const outcome = this.#outcome;
    if (!outcome) throw new Error("the promise has not settled");
    if (!outcome.ok) throw outcome.error;
    return outcome.value;
  }

  /** Calls `listener` once the promise settles, instead of any listener set before. */
  listen(listener: (() => void) | undefined): void {
    this.#listener = listener;
  }

  #settle(outcome: Outcome<T>): void {
    this.#outcome = outcome;
    const listener = this.#listener;
    this.#listener = undefined;
    listener?.();
  }
}

/**
 * The first of `watched` to settle (the first in order of those already settled), or whatever
 * `arm` settles first: `arm` starts the other contenders (a timer, a wake-up) and returns what
 * stops them. Rejects with the rejection of the promise it picks. The promises listen only until
 * the race is over; a Watched takes part in one race at a time.
 */
export function raceWatched<T, O = never>(
  watched: readonly Watched<T>[],
  arm?: (settle: (other: O) => void) => () => void,
): Promise<T | O> {
  return new Promise<T | O>((resolve, reject) => {
    let finished = false;
    let disarm: (() => void) | undefined;
    const over = () => {
      finished = true;
      for (const w of watched) w.listen(undefined);
      disarm?.();
    };
    const pick = (): boolean => {
      const winner = watched.find((w) => w.settled);
      if (!winner) return false;
      over();
      try {
        resolve(winner.take());
      } catch (err) {
        reject(err);
      }
      return true;
    };
    if (pick()) return;
    for (const w of watched) w.listen(pick);
    const stop = arm?.((other) => {
      if (finished) return;
      over();
      resolve(other);
    });
    if (finished) stop?.();
    else disarm = stop;
  });
}
