// The hubs' windows together (--hub-rings-mb). Each window is bounded on its own (--hub-ring-mb,
// --hub-window-ms), and a gateway follows a stream per hub, so following many busy streams
// would grow it by a window each; this bounds them all. Past the bound every window over its
// share (nine tenths of the bound split evenly among the windows, so the next batches do not
// bring the bound back at once) drops its oldest batches down to it. A window keeps its newest
// batch whatever its size (so the windows may hold more than the bound by their newest batches),
// and a reader left behind its window catches up on its own, as when a window moves on. One
// sweep of every window when the bound is passed; while the windows stay past it (their newest
// batches alone over it), only a window that grows shrinks to its share, so a batch costs what
// it cost without the bound, not a walk over every hub. Pure: no I/O.

/** A hub's window as the budget sees it. */
export interface BudgetedWindow {
  /** The memory it holds now. */
  readonly bytes: number;
  /** Drops its oldest batches until it holds at most `bytes`, or only its newest. */
  shrinkTo(bytes: number): void;
}

export class RingBudget {
  readonly #max: number;
  #held = 0;
  readonly #windows = new Set<BudgetedWindow>();
  #shrinking = false;
  /** Every window was brought to its share since the windows last were within the bound. */
  #swept = false;

  constructor(maxBytes: number) {
    this.#max = maxBytes;
  }

  /** The memory the windows hold, all together. */
  get held(): number {
    return this.#held;
  }

  get maxBytes(): number {
    return this.#max;
  }

  /** A new window, empty. */
  join(window: BudgetedWindow): void {
    this.#windows.add(window);
    this.#swept = false;
  }

  /** A window no longer kept (its hub ended): what it holds leaves the sum. */
  leave(window: BudgetedWindow): void {
    if (this.#windows.delete(window)) this.#held -= window.bytes;
    this.#swept = false;
  }

  /**
   * `window`'s memory grew (or shrank) by `delta`; past the bound, windows over their share
   * shrink: all of them the first time, then the one that grew.
   */
  changed(delta: number, window: BudgetedWindow): void {
    this.#held += delta;
    if (this.#held <= this.#max) {
      this.#swept = false;
      return;
    }
    if (this.#shrinking || delta <= 0) return;
    this.#shrinking = true;
    try {
      const share = Math.floor((this.#max * 0.9) / this.#windows.size);
      const over = this.#swept ? [window] : this.#windows;
      for (const w of over) {
        if (w.bytes > share) w.shrinkTo(share);
      }
      this.#swept = true;
    } finally {
      this.#shrinking = false;
    }
  }
}
