// A least-recently-used map bounded by the total byte size of its values.
export class ByteLru<V> {
  readonly #max: number;
  readonly #entries = new Map<string, { value: V; bytes: number }>();
  readonly #evicted: ((value: V) => void) | undefined;
  #bytes = 0;

  /** `evicted` is called with each value that leaves (evicted, replaced, deleted). */
  constructor(maxBytes: number, evicted?: (value: V) => void) {
    this.#max = maxBytes;
    this.#evicted = evicted;
  }

  get bytes(): number {
    return this.#bytes;
  }

  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  /** Stores a value; one larger than the whole budget is not kept. */
  set(key: string, value: V, bytes: number): void {
    this.delete(key);
    if (bytes > this.#max) return;
    this.#entries.set(key, { value, bytes });
    this.#bytes += bytes;
    for (const [k, e] of this.#entries) {
      if (this.#bytes <= this.#max) break;
      this.#entries.delete(k);
      this.#bytes -= e.bytes;
      this.#evicted?.(e.value);
    }
  }

  delete(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
    this.#evicted?.(entry.value);
  }
}
