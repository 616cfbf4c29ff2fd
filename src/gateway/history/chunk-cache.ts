// Verified chunks kept within a byte budget (least recently used out first), and loads in
// flight shared: readers of the same chunk at once cost one fetch. A shared load is cancelled
// only when every reader waiting for it has gone.
import { ByteLru } from "../../platform/memory/index.ts";

export type CacheOutcome = "hit" | "shared" | "loaded";

interface InFlight<V> {
  controller: AbortController;
  waiters: Set<{ resolve: (v: V) => void; reject: (e: unknown) => void }>;
}

export class ChunkCache<V> {
  readonly #lru: ByteLru<V>;
  readonly #sizeOf: (value: V) => number;
  readonly #evicted: (value: V) => void;
  readonly #inFlight = new Map<string, InFlight<V>>();

  /** `evicted` is called with each value that leaves the cache (or is never kept in it). */
  constructor(maxBytes: number, sizeOf: (value: V) => number, evicted?: (value: V) => void) {
    this.#lru = new ByteLru(maxBytes, evicted);
    this.#sizeOf = sizeOf;
    this.#evicted = evicted ?? (() => {});
  }

  get bytes(): number {
    return this.#lru.bytes;
  }

  /**
   * The cached value, or the one a load in flight for `key` yields, or a new load's. Rejects
   * with the load's error (failures are not cached), or an AbortError when `signal` aborts.
   */
  get(
    key: string,
    load: (signal: AbortSignal) => Promise<V>,
    signal: AbortSignal,
  ): Promise<{ value: V; outcome: CacheOutcome }> {
    const cached = this.#lru.get(key);
    if (cached !== undefined) return Promise.resolve({ value: cached, outcome: "hit" });
    if (signal.aborted) return Promise.reject(abortReason(signal));
    let flight = this.#inFlight.get(key);
    const outcome: CacheOutcome = flight ? "shared" : "loaded";
    if (!flight) flight = this.#start(key, load);
    const current = flight;
    return new Promise((resolve, reject) => {
      const waiter = {
        resolve: (value: V) => {
          signal.removeEventListener("abort", onAbort);
          resolve({ value, outcome });
        },
        reject: (err: unknown) => {
          signal.removeEventListener("abort", onAbort);
          reject(err);
        },
      };
      const onAbort = () => {
        current.waiters.delete(waiter);
        if (current.waiters.size === 0 && this.#inFlight.get(key) === current) {
          this.#inFlight.delete(key);
          current.controller.abort();
        }
        reject(abortReason(signal));
      };
      current.waiters.add(waiter);
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  #start(key: string, load: (signal: AbortSignal) => Promise<V>): InFlight<V> {
    const flight: InFlight<V> = { controller: new AbortController(), waiters: new Set() };
    this.#inFlight.set(key, flight);
    const settle = (fn: (w: InFlight<V>["waiters"] extends Set<infer W> ? W : never) => void) => {
      if (this.#inFlight.get(key) === flight) this.#inFlight.delete(key);
      for (const w of [...flight.waiters]) fn(w);
      flight.waiters.clear();
    };
    load(flight.controller.signal).then(
      (value) => {
        // Abandoned by every reader: nobody waits, and the value is let go as the cache would.
        if (flight.controller.signal.aborted) this.#evicted(value);
        else this.#lru.set(key, value, this.#sizeOf(value));
        settle((w) => w.resolve(value));
      },
      (err: unknown) => settle((w) => w.reject(err)),
    );
    return flight;
  }
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("aborted", "AbortError");
}
