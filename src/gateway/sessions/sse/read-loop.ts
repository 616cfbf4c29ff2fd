// The loop every read session runs (nova's SSE sessions, S2's SSE sessions, s2s read sessions):
// before each wait the session says whether it goes on (a drain request, a socket to drain
// first); then the loop waits for the first of the session's next read, its timer (a ping, a
// heartbeat, an idle end) and a wake-up, and hands over what came. What a session writes, and
// when it ends, stays the session's own.
//
// An idle subscriber sits in one wait for a whole ping period, so a wait is made of the loop's
// own fields and callbacks, made once per loop: the wait's promise and its timer are all it
// allocates.
import { Watched } from "../../../platform/concurrency/index.ts";

/** One session as its read loop drives it; each step answers false to end the loop. */
export interface LoopSteps<T> {
  /** Before each wait: whether to wait at all (it may wait for the socket to drain first). */
  ready(): boolean | Promise<boolean>;
  /** The reads to wait on: the same pending reads until one is handed over. */
  reads(): Promise<T> | readonly Promise<T>[];
  /** When the timer fires, ms since the epoch. */
  wakeAt(): number;
  timer(): boolean | Promise<boolean>;
  read(got: T): boolean | Promise<boolean>;
}

const TIMER = Symbol("timer");
const WAKE = Symbol("wake");
type Outcome = Watched<unknown> | typeof TIMER | typeof WAKE;
const NONE: readonly Watched<unknown>[] = [];

export class ReadLoop {
  #wake: (() => void) | undefined;
  /**
   * The last wait's reads and their watches: a read is watched once however many waits it
   * outlives (each wait is given every read still pending), in two arrays, lighter than a map.
   */
  #lastReads: readonly Promise<unknown>[] = [];
  #lastWatched = NONE;
  /** The wait under way: the reads it waits on, its end and its timer. */
  #pending = NONE;
  #resolve: ((outcome: Outcome) => void) | undefined;
  #timer: NodeJS.Timeout | undefined;
  readonly #onRead = () => this.#end(this.#pending.find((w) => w.settled));
  readonly #onTimer = () => this.#end(TIMER);
  readonly #onWake = () => this.#end(WAKE);

  /** Ends the current wait (the loop asks `ready` again): a drain request, a client gone. */
  wake(): void {
    this.#wake?.();
  }

  /** For other waits of the session that a wake-up must end too (a socket's drain). */
  readonly setWake = (wake: (() => void) | undefined): void => {
    this.#wake = wake;
  };

  async run<T>(steps: LoopSteps<T>): Promise<void> {
    for (;;) {
      if (!(await steps.ready())) return;
      const reads = steps.reads();
      const list: readonly Promise<T>[] = Array.isArray(reads) ? reads : [reads as Promise<T>];
      const got = await this.#wait(this.#watch(list), steps.wakeAt() - Date.now());
      if (got === WAKE) continue;
      const more = got === TIMER ? steps.timer() : steps.read((got as Watched<T>).take());
      if (!(await more)) return;
    }
  }

  /**
   * The first of `pending` to settle (the first given, of those already settled), the timer
   * after `delayMs`, or a wake-up. A read that rejected is handed over too: `take` throws it.
   */
  #wait(pending: readonly Watched<unknown>[], delayMs: number): Promise<Outcome> {
    const settled = pending.find((w) => w.settled);
    if (settled) return Promise.resolve(settled);
    return new Promise<Outcome>((resolve) => {
      this.#pending = pending;
      this.#resolve = resolve;
      for (const w of pending) w.listen(this.#onRead);
      this.#timer = setTimeout(this.#onTimer, Math.max(0, delayMs));
      this.#wake = this.#onWake;
    });
  }

  #end(outcome: Outcome | undefined): void {
    const resolve = this.#resolve;
    if (!resolve || outcome === undefined) return;
    this.#resolve = undefined;
    for (const w of this.#pending) w.listen(undefined);
    this.#pending = NONE;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#wake = undefined;
    resolve(outcome);
  }

  #watch(reads: readonly Promise<unknown>[]): readonly Watched<unknown>[] {
    const last = this.#lastReads;
    const watched = reads.map((read) => {
      const i = last.indexOf(read);
      return i < 0 ? new Watched(read) : (this.#lastWatched[i] as Watched<unknown>);
    });
    this.#lastReads = reads;
    this.#lastWatched = watched;
    return watched;
  }
}
