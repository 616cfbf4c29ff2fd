// The loop every read session runs (nova's SSE sessions, S2's SSE sessions, s2s read sessions):
// before each wait the session says whether it goes on (a drain request, a socket to drain
// first); then the loop waits for the first of the session's next read, its timer (a ping, a
// heartbeat, an idle end) and a wake-up, and hands over what came. What a session writes, and
// when it ends, stays the session's own.
import { Watched } from "../../../platform/concurrency/index.ts";
import { raceNext } from "./next-batch.ts";

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

export class ReadLoop {
  #wake: (() => void) | undefined;
  /** Each pending read, watched once however many waits it outlives. */
  readonly #watched = new WeakMap<Promise<unknown>, Watched<unknown>>();

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
      const pending = list.map((read) => this.#watch(read));
      const got = await raceNext(pending, steps.wakeAt() - Date.now(), "wake", this.setWake);
      if (got === "wake") continue;
      if (!(await (got === "timer" ? steps.timer() : steps.read(got)))) return;
    }
  }

  #watch<T>(read: Promise<T>): Watched<T> {
    let watched = this.#watched.get(read);
    if (!watched) {
      watched = new Watched(read);
      this.#watched.set(read, watched);
    }
    return watched as Watched<T>;
  }
}
