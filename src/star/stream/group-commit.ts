// Group commit: appends wait in line until a commit is due (an express stream, a fence first in
// line, the batch limits reached, or the oldest waiting the batch window out), then one flush
// takes what fits; one flush at a time, so what arrives meanwhile joins the next. The window runs
// on the injected clock, the one pacing runs on. What a flush does with the items is the caller's.

import type { Clock } from "./clock.ts";

/** The stream's batching settings, read at every decision so a reconfiguration applies at once. */
export interface BatchLimits {
  /** Every item is due at once (an express stream): no window. */
  immediate: boolean;
  maxBytes: number;
  maxRecords: number;
  /** The longest the oldest item waits for others to join it. */
  maxDelayMs: number;
}

export interface Size {
  bytes: number;
  records: number;
}

export interface GroupCommitOptions {
  clock: Clock;
  limits: () => BatchLimits;
  /** Takes items with `next` and `take`; never rejects. The next flush waits for it. */
  flush: () => Promise<void>;
}

interface Waiting<T> {
  item: T;
  /** None for a fence: due as soon as it is first in line. */
  size: Size | undefined;
}

export class GroupCommit<T> {
  readonly #clock: Clock;
  readonly #limits: () => BatchLimits;
  readonly #flushItems: () => Promise<void>;
  #line: Waiting<T>[] = [];
  #bytes = 0;
  #records = 0;
  /** When the window of the items waiting now began. */
  #since = 0;
  #flushing: Promise<void> | undefined;
  #timer: unknown;

  constructor(options: GroupCommitOptions) {
    this.#clock = options.clock;
    this.#limits = options.limits;
    this.#flushItems = options.flush;
  }

  /** Puts an item in line; one without a size (a fence) is due as soon as it is first. */
  push(item: T, size?: Size): void {
    if (this.#line.length === 0) this.#since = this.#clock.now();
    this.#line.push({ item, size });
    this.#bytes += size?.bytes ?? 0;
    this.#records += size?.records ?? 0;
    this.#kick();
  }

  /** The first item in line. */
  get next(): T | undefined {
    return this.#line[0]?.item;
  }

  /** Takes the first item out of the line, for the flush under way. */
  take(): T | undefined {
    const first = this.#line.shift();
    this.#bytes -= first?.size?.bytes ?? 0;
    this.#records -= first?.size?.records ?? 0;
    return first?.item;
  }

  /** Whether an item of `size` joins a commit that already holds `taken`: within the limits. */
  fits(taken: Size, size: Size): boolean {
    const limits = this.#limits();
    return (
      taken.bytes + size.bytes <= limits.maxBytes &&
      taken.records + size.records <= limits.maxRecords
    );
  }

  /** Stops the window's timer; returns the items still in line, for the caller to fail. */
  close(): T[] {
    this.#stopTimer();
    this.#bytes = 0;
    this.#records = 0;
    return this.#line.splice(0).map((waiting) => waiting.item);
  }

  #kick(): void {
    if (this.#flushing || this.#line.length === 0) return;
    const limits = this.#limits();
    const waited = this.#clock.now() - this.#since;
    const due =
      limits.immediate ||
      this.#line[0]?.size === undefined ||
      this.#bytes >= limits.maxBytes ||
      this.#records >= limits.maxRecords ||
      waited >= limits.maxDelayMs;
    if (due) {
      this.#stopTimer();
      this.#flushing = this.#flush();
    } else if (this.#timer === undefined) {
      this.#timer = this.#clock.setTimeout(
        () => {
          this.#timer = undefined;
          this.#kick();
        },
        Math.max(0, limits.maxDelayMs - waited),
      );
    }
  }

  /** Nothing in line and no flush under way. */
  get quiet(): boolean {
    return this.#line.length === 0 && this.#flushing === undefined;
  }

  /** Resolves once the flush under way, if any, has ended. */
  idle(): Promise<void> {
    return this.#flushing ?? Promise.resolve();
  }

  async #flush(): Promise<void> {
    try {
      await this.#flushItems();
    } finally {
      this.#flushing = undefined;
      // What waited through the flush starts a new window now.
      if (this.#line.length > 0) this.#since = this.#clock.now();
      this.#kick();
    }
  }

  #stopTimer(): void {
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
