// The loop every read session runs (nova's SSE sessions, S2's SSE sessions, s2s read sessions):
// before each wait the session says whether it goes on (a drain request, a socket to drain
// first); then the loop waits for the first of the session's next read, its timer (a ping, a
// heartbeat, an idle end) and a wake-up, and hands over what came. What a session writes, and
// when it ends, stays the session's own.
//
// An idle subscriber sits in one wait for a whole ping period, so a wait is made of the loop's
// own fields and callbacks, made once per loop: its timer is all it allocates.
import {
  TimerWheel,
  type Watchable,
  Watched,
  type WheelEntry,
} from "../../../platform/concurrency/index.ts";

/** One session as its read loop drives it; each step answers false to end the loop. */
export interface LoopSteps<T> {
  /** Before each wait: whether to wait at all (it may wait for the socket to drain first). */
  ready(): boolean | Promise<boolean>;
  /**
   * The reads to wait on: the same pending reads until one is handed over. A read may be its own
   * watch (a Watchable), which spares the loop wrapping its promise.
   */
  reads(): Read<T> | readonly Read<T>[];
  /** When the timer fires, ms since the epoch. */
  wakeAt(): number;
  timer(): boolean | Promise<boolean>;
  read(got: T): boolean | Promise<boolean>;
}

type Read<T> = Promise<T> | Watchable<T>;

/** How a run ends, told to the session (`start`) rather than through a promise. */
export interface LoopEnd {
  /** A step answered false. */
  finished(): void;
  /** A step threw, or its promise rejected. */
  failed(err: unknown): void;
}

/**
 * Waits this long or longer (an idle session's next ping, 10 to 15 s away) are deadlines on one
 * wheel for every loop of the process, not a timer each; shorter ones keep a timer of their own,
 * to the millisecond.
 */
const WHEEL_MIN_MS = 1_000;
const wheel = new TimerWheel(100);

const TIMER = Symbol("timer");
const WAKE = Symbol("wake");
type Outcome = Watchable<unknown> | typeof TIMER | typeof WAKE;
const NONE: readonly Watchable<unknown>[] = [];

export class ReadLoop implements WheelEntry {
  #wake: (() => void) | undefined;
  /**
   * The last wait's reads and their watches: a read is watched once however many waits it
   * outlives (each wait is given every read still pending), in two arrays, lighter than a map.
   */
  #lastReads: readonly Read<unknown>[] = [];
  #lastWatched = NONE;
  /** The wait under way: the reads it waits on and its timer. */
  #pending = NONE;
  #waiting = false;
  #timer: NodeJS.Timeout | undefined;
  /** The wait's deadline on the wheel (its tick), when it has one there. */
  #tick: number | undefined;
  /** The run under way: its steps, and whom its end is told. */
  #steps: LoopSteps<unknown> | undefined;
  #endTo: LoopEnd | undefined;
  readonly #onRead = () => this.#end(this.#pending.find((w) => w.settled));

  /** Ends the current wait (the loop asks `ready` again): a drain request, a client gone. */
  wake(): void {
    if (this.#wake) this.#wake();
    else this.#end(WAKE);
  }

  /** For other waits of the session that a wake-up must end too (a socket's drain). */
  setWake(wake: (() => void) | undefined): void {
    this.#wake = wake;
  }

  /**
   * Runs the steps until one answers false (resolves) or throws (rejects with it). Not an async
   * function: a waiting loop is its fields, its callbacks and its timer, with no suspended
   * frame or promise of its own.
   */
  run<T>(steps: LoopSteps<T>): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.start(steps, { finished: resolve, failed: reject });
    });
  }

  /**
   * Runs the steps as `run` does, telling `end` how the run ended: a session that is its own
   * end holds no promise for the run.
   */
  start<T>(steps: LoopSteps<T>, end: LoopEnd): void {
    this.#steps = steps as LoopSteps<unknown>;
    this.#endTo = end;
    this.#ready();
  }

  #ready(): void {
    let go: boolean | Promise<boolean>;
    try {
      go = (this.#steps as LoopSteps<unknown>).ready();
    } catch (err) {
      this.#fail(err);
      return;
    }
    this.#then(go, () => this.#wait());
  }

  /**
   * Waits for the first of the reads to settle (the first given, of those already settled), the
   * timer, or a wake-up. A read that rejected is handed over too: `take` throws it.
   */
  #wait(): void {
    const steps = this.#steps as LoopSteps<unknown>;
    let pending: readonly Watchable<unknown>[];
    let delayMs: number;
    try {
      const reads = steps.reads();
      pending = this.#watch(Array.isArray(reads) ? reads : [reads as Read<unknown>]);
      delayMs = steps.wakeAt() - Date.now();
    } catch (err) {
      this.#fail(err);
      return;
    }
    const settled = pending.find((w) => w.settled);
    if (settled) {
      queueMicrotask(() => this.#handle(settled));
      return;
    }
    this.#pending = pending;
    this.#waiting = true;
    for (const w of pending) w.listen(this.#onRead);
    if (delayMs >= WHEEL_MIN_MS) this.#tick = wheel.schedule(this, Date.now() + delayMs);
    // One function for every loop, given its loop: a timer's argument, not a closure each.
    else this.#timer = setTimeout(ReadLoop.#onTimer, Math.max(0, delayMs), this);
  }

  /** The wait's deadline on the wheel came (WheelEntry). */
  onTimer(): void {
    this.#tick = undefined;
    this.#end(TIMER);
  }

  static #onTimer(loop: ReadLoop): void {
    loop.#end(TIMER);
  }

  #end(outcome: Outcome | undefined): void {
    if (!this.#waiting || outcome === undefined) return;
    this.#waiting = false;
    for (const w of this.#pending) w.listen(undefined);
    this.#pending = NONE;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#tick !== undefined) wheel.cancel(this, this.#tick);
    this.#tick = undefined;
    queueMicrotask(() => this.#handle(outcome));
  }

  #handle(outcome: Outcome): void {
    if (outcome === WAKE) {
      this.#ready();
      return;
    }
    let more: boolean | Promise<boolean>;
    try {
      const steps = this.#steps as LoopSteps<unknown>;
      more = outcome === TIMER ? steps.timer() : steps.read(outcome.take());
    } catch (err) {
      this.#fail(err);
      return;
    }
    this.#then(more, () => this.#ready());
  }

  /** Goes on with `next` once `more` is true; a false ends the run, a rejection fails it. */
  #then(more: boolean | Promise<boolean>, next: () => void): void {
    Promise.resolve(more).then(
      (yes) => (yes ? next() : this.#done()),
      (err: unknown) => this.#fail(err),
    );
  }

  /** Ends the run; the loop keeps nothing of it. */
  #done(): void {
    const end = this.#endTo;
    this.#release();
    end?.finished();
  }

  /** Ends the run with `err`. */
  #fail(err: unknown): void {
    const end = this.#endTo;
    this.#release();
    end?.failed(err);
  }

  #release(): void {
    this.#steps = undefined;
    this.#endTo = undefined;
  }

  #watch(reads: readonly Read<unknown>[]): readonly Watchable<unknown>[] {
    if (!reads.some((read) => read instanceof Promise)) {
      // Reads that are their own watches need no wrapping, and nothing to remember.
      this.#lastReads = NONE;
      this.#lastWatched = NONE;
      return reads as readonly Watchable<unknown>[];
    }
    const last = this.#lastReads;
    const watched = reads.map((read) => {
      if (!(read instanceof Promise)) return read;
      const i = last.indexOf(read);
      return i < 0 ? new Watched(read) : (this.#lastWatched[i] as Watchable<unknown>);
    });
    this.#lastReads = reads;
    this.#lastWatched = watched;
    return watched;
  }
}
