// Serializes async work per key (creates and reconfigures of one descriptor), so two concurrent
// creates of the same name converge instead of racing.
export class KeyedLock {
  readonly #tails = new Map<string, Promise<unknown>>();

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const current = previous.then(work, work);
    const settled = current.catch(() => undefined);
    this.#tails.set(key, settled);
    try {
      return await current;
    } finally {
      if (this.#tails.get(key) === settled) this.#tails.delete(key);
    }
  }
}
