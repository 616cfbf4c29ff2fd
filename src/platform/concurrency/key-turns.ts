/**
 * One turn at a time per key: what runs in a key's turn (a conditional PUT's check and its write;
 * a create of one bucket or stream) is one step for everything else that takes a turn on that
 * key, so two concurrent creates of one name converge instead of racing. Turns on different keys
 * overlap; a turn that fails ends like any other.
 */
export class KeyTurns {
  readonly #tails = new Map<string, Promise<void>>();

  /** Runs `work` once every earlier turn on `key` has ended; its result is the turn's. */
  async take<T>(key: string, work: () => Promise<T>): Promise<T> {
    const before = this.#tails.get(key) ?? Promise.resolve();
    let end = () => {};
    const mine = new Promise<void>((resolve) => {
      end = resolve;
    });
    const tail = before.then(() => mine);
    this.#tails.set(key, tail);
    await before;
    try {
      return await work();
    } finally {
      end();
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    }
  }

  /** Keys with a turn running or waiting (for tests: none are left behind). */
  get busyKeys(): number {
    return this.#tails.size;
  }
}
