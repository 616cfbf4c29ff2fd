// A clock for the stream's tests: time moves only when a test says, so pacing and batching run
// deterministically, without real sleeps.
import type { Clock } from "./clock.ts";

/** A clock that moves only when told, firing its due timers in order. */
export class ManualClock implements Clock {
  #now = 1_000_000;
  #timers: { at: number; fn: () => void }[] = [];

  now(): number {
    return this.#now;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const timer = { at: this.#now + ms, fn };
    this.#timers.push(timer);
    return timer;
  }

  clearTimeout(handle: unknown): void {
    this.#timers = this.#timers.filter((t) => t !== handle);
  }

  get timers(): number {
    return this.#timers.length;
  }

  advance(ms: number): void {
    this.#now += ms;
    for (;;) {
      const due = this.#timers.filter((t) => t.at <= this.#now).sort((a, b) => a.at - b.at)[0];
      if (!due) return;
      this.clearTimeout(due);
      due.fn();
    }
  }
}
