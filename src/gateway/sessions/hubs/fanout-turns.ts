// The readers every hub of a gateway may serve in one turn of the event loop, shared: a batch
// arriving on 100 streams at once is 100 fan-outs, and each one's own slice let all of them run
// back to back (10,000 socket writes) before the event loop read the appends waiting behind
// them. A hub takes what is left of the turn's readers; past it, it goes on in a later turn,
// after the hubs that were waiting before it. A turn's readers are counted afresh once the
// event loop has served its I/O again (a setImmediate after the first take of a turn).

export class FanoutTurns {
  readonly #perTurn: number;
  #left: number;
  #resetting = false;
  #waiting: (() => void)[] = [];

  constructor(perTurn: number) {
    this.#perTurn = Math.max(1, perTurn);
    this.#left = this.#perTurn;
  }

  /** Takes up to `want` readers of this turn: how many this turn still has for the caller. */
  take(want: number): number {
    this.#scheduleReset();
    const n = Math.min(want, this.#left);
    this.#left -= n;
    return n;
  }

  /** Runs `go` in a later turn, after those already waiting. */
  later(go: () => void): void {
    this.#waiting.push(go);
    this.#scheduleReset();
  }

  #scheduleReset(): void {
    if (this.#resetting) return;
    this.#resetting = true;
    setImmediate(this.#reset);
  }

  readonly #reset = (): void => {
    this.#resetting = false;
    this.#left = this.#perTurn;
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const go of waiting) go();
  };
}
