// The throughput cap in time: each append (or fence) the cap admits is passed on at once or held
// until its release on the injected clock, in arrival order; a batch the cap would hold past the
// wait bound is refused. The rule itself, the token bucket, is throughput.ts.

import type { Clock } from "./clock.ts";
import {
  type Admission,
  admitBatch,
  admitFence,
  INITIAL_THROUGHPUT,
  type ThroughputState,
} from "./throughput.ts";

export interface AppendPacerOptions<T> {
  clock: Clock;
  /** The longest the cap may hold a batch; one it would hold longer is refused. */
  maxWaitMs: number;
  /** Takes each admitted item once released, in arrival order. */
  release: (item: T) => void;
}

/** A batch the cap refused: after this long the same batch would be admitted. */
export interface Refusal {
  retryAfterMs: number;
}

interface Held<T> {
  item: T;
  releaseMs: number;
}

export class AppendPacer<T> {
  readonly #clock: Clock;
  readonly #maxWaitMs: number;
  readonly #release: (item: T) => void;
  #state: ThroughputState = INITIAL_THROUGHPUT;
  /** In arrival order, so release times never fall along it. */
  #held: Held<T>[] = [];
  #timer: unknown;

  constructor(options: AppendPacerOptions<T>) {
    this.#clock = options.clock;
    this.#maxWaitMs = options.maxWaitMs;
    this.#release = options.release;
  }

  /**
   * Admits a batch of `bytes` at `rate` bytes a second (0: unlimited), released now or when its
   * turn comes; or refuses it, leaving the cap as it was.
   */
  batch(item: T, bytes: number, rate: number): Refusal | undefined {
    const admission = admitBatch(this.#state, {
      rate,
      bytes,
      nowMs: this.#clock.now(),
      maxWaitMs: this.#maxWaitMs,
    });
    if (!admission.admitted) return { retryAfterMs: admission.retryAfterMs };
    this.#pass(item, admission);
    return undefined;
  }

  /** Admits a fence: it costs nothing, but is released only after what was admitted before it. */
  fence(item: T): void {
    this.#pass(item, admitFence(this.#state, this.#clock.now()));
  }

  /** Nothing held. */
  get quiet(): boolean {
    return this.#held.length === 0;
  }

  /** Stops the timer; returns the items still held, for the caller to fail. */
  close(): T[] {
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    return this.#held.splice(0).map((held) => held.item);
  }

  #pass(item: T, admission: Extract<Admission, { admitted: true }>): void {
    this.#state = admission.state;
    // Behind a held item even when due now, so nothing overtakes what came before it.
    if (this.#held.length === 0 && admission.delayMs <= 0) {
      this.#release(item);
      return;
    }
    this.#held.push({ item, releaseMs: admission.releaseMs });
    this.#arm();
  }

  /** One timer, for the oldest held item: release times never fall along the line. */
  #arm(): void {
    const head = this.#held[0];
    if (this.#timer !== undefined || !head) return;
    const delay = Math.max(0, Math.ceil(head.releaseMs - this.#clock.now()));
    this.#timer = this.#clock.setTimeout(() => {
      this.#timer = undefined;
      this.#releaseDue();
    }, delay);
  }

  #releaseDue(): void {
    const now = this.#clock.now();
    let due = 0;
    while (due < this.#held.length && (this.#held[due] as Held<T>).releaseMs <= now) due++;
    for (const held of this.#held.splice(0, due)) this.#release(held.item);
    this.#arm();
  }
}
