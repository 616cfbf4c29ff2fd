// Loads the items of an async source ahead of the consumer, in order, with at most `depth`
// loads started beyond the one being consumed. When the consumer stops, no load starts any
// more; those under way finish (into the chunk cache, where a paginating client's next page
// finds them) unless the consumer's signal aborted, which aborts them.

export type Loaded<V> = { ok: true; value: V } | { ok: false; error: unknown };

export interface Prefetched<E, V> {
  entry: E;
  result: Loaded<V>;
}

interface Slot<E, V> {
  entry: E;
  controller: AbortController;
  settled: Promise<Loaded<V>>;
}

export async function* prefetch<E, V>(
  source: AsyncIterable<E>,
  load: (entry: E, signal: AbortSignal) => Promise<V>,
  depth: number,
  signal: AbortSignal,
): AsyncGenerator<Prefetched<E, V>, void, undefined> {
  const it = source[Symbol.asyncIterator]();
  const queue: Slot<E, V>[] = [];
  let sourceDone = false;
  let sourceError: unknown;
  let stopped = false;
  /** The consumer waits for its next item: at least one load must be under way. */
  let waiting = false;
  let filling: Promise<void> | undefined;

  const start = (entry: E): Slot<E, V> => {
    const controller = new AbortController();
    const settled = load(entry, AbortSignal.any([signal, controller.signal])).then(
      (value): Loaded<V> => ({ ok: true, value }),
      (error: unknown): Loaded<V> => ({ ok: false, error }),
    );
    return { entry, controller, settled };
  };

  const pull = async (): Promise<void> => {
    try {
      while (!sourceDone && !stopped && queue.length < (waiting ? Math.max(depth, 1) : depth)) {
        const next = await it.next();
        if (next.done) sourceDone = true;
        else if (stopped) return;
        else queue.push(start(next.value));
      }
    } catch (err) {
      sourceError = err;
      sourceDone = true;
    }
  };
  // One filler at a time: the source is pulled strictly in order. Cleared in a callback, which
  // always runs after the assignment (a filler with nothing to do finishes synchronously).
  const fill = (): Promise<void> => {
    filling ??= pull().finally(() => {
      filling = undefined;
    });
    return filling;
  };

  try {
    for (;;) {
      if (queue.length === 0) {
        waiting = true;
        await fill();
        waiting = false;
        if (queue.length === 0) {
          if (sourceError !== undefined) throw sourceError;
          if (sourceDone) return;
          continue;
        }
      }
      const slot = queue.shift() as Slot<E, V>;
      void fill();
      const result = await slot.settled;
      if (signal.aborted) throw signal.reason;
      yield { entry: slot.entry, result };
    }
  } finally {
    stopped = true;
    const left = queue.splice(0);
    if (signal.aborted) for (const slot of left) slot.controller.abort();
    // Not awaited: a pull in flight (a re-plan) must not hold up the consumer. An async
    // generator queues the return behind that pull and then closes.
    void it.return?.()?.catch(() => undefined);
  }
}
