// Many far deadlines on one timer: a ping due in 10 to 15 s for each of thousands of idle
// subscribers. A Node timer is an object of its own (about 130 bytes, and a list per distinct
// duration, which jittered deadlines make many of); here a deadline is a place in the set of
// its tick, and one timer, armed for the earliest tick, fires them all. A deadline fires at its
// time or up to one tick later.

/** What a wheel calls when its deadline comes. */
export interface WheelEntry {
  onTimer(): void;
}

export class TimerWheel {
  readonly #tickMs: number;
  readonly #now: () => number;
  /** The entries due in each tick (a tick is `ceil(ms / tickMs)`). */
  readonly #ticks = new Map<number, Set<WheelEntry>>();
  #timer: NodeJS.Timeout | undefined;
  /** The tick the timer is armed for. */
  #armed = Number.POSITIVE_INFINITY;

  constructor(tickMs: number, now: () => number = Date.now) {
    this.#tickMs = tickMs;
    this.#now = now;
  }

  /** Deadlines waiting. */
  get size(): number {
    let n = 0;
    for (const entries of this.#ticks.values()) n += entries.size;
    return n;
  }

  /** Calls `entry.onTimer()` once `atMs` (ms since the epoch) has come; the tick, to cancel it. */
  schedule(entry: WheelEntry, atMs: number): number {
    const tick = Math.ceil(atMs / this.#tickMs);
    let entries = this.#ticks.get(tick);
    if (!entries) {
      entries = new Set();
      this.#ticks.set(tick, entries);
    }
    entries.add(entry);
    if (tick < this.#armed) this.#arm(tick);
    return tick;
  }

  cancel(entry: WheelEntry, tick: number): void {
    const entries = this.#ticks.get(tick);
    if (!entries?.delete(entry)) return;
    // The timer stays armed: it finds nothing and arms for what is left.
    if (entries.size === 0) this.#ticks.delete(tick);
  }

  #arm(tick: number): void {
    clearTimeout(this.#timer);
    this.#armed = tick;
    this.#timer = setTimeout(() => this.#fire(), Math.max(0, tick * this.#tickMs - this.#now()));
    // A process with nothing else to do does not wait for its pings.
    this.#timer.unref();
  }

  #fire(): void {
    this.#timer = undefined;
    this.#armed = Number.POSITIVE_INFINITY;
    const now = Math.floor(this.#now() / this.#tickMs);
    const due: [number, Set<WheelEntry>][] = [];
    let next = Number.POSITIVE_INFINITY;
    for (const [tick, entries] of this.#ticks) {
      if (tick <= now) {
        due.push([tick, entries]);
        this.#ticks.delete(tick);
      } else if (tick < next) {
        next = tick;
      }
    }
    if (next !== Number.POSITIVE_INFINITY) this.#arm(next);
    // After a stall several ticks are due at once: the map holds them as they were first used.
    if (due.length > 1) due.sort((a, b) => a[0] - b[0]);
    for (const [, entries] of due) for (const entry of entries) entry.onTimer();
  }
}
