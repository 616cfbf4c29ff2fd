// Memory kept for reuse, by size class, within a bound on the bytes kept: what the buffer pools
// (buffer-pool.ts) and the chunk memory pool hold between loans. Anything beyond the bound is
// left to the garbage collector.
export class IdleShelf<T> {
  readonly #free = new Map<number, T[]>();
  readonly #maxBytes: number;
  #bytes = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** Bytes kept. */
  get bytes(): number {
    return this.#bytes;
  }

  /** A kept item of class `size` bytes, or undefined when there is none. */
  take(size: number): T | undefined {
    const item = this.#free.get(size)?.pop();
    if (item !== undefined) this.#bytes -= size;
    return item;
  }

  /** Keeps `item`, of `size` bytes, unless that would pass the bound. */
  keep(size: number, item: T): void {
    if (this.#bytes + size > this.#maxBytes) return;
    let list = this.#free.get(size);
    if (!list) {
      list = [];
      this.#free.set(size, list);
    }
    list.push(item);
    this.#bytes += size;
  }
}
