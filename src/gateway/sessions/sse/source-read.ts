// How a session reads its source (nova's Durable Streams SSE, S2's SSE and s2s read sessions):
// stopped with the client, opened with its first batch in hand, one batch pulled at a time
// (read-loop.ts races it against a timer and a wake-up), released once however the session ends.
import type { BatchSource, Cursor, SourceBatch } from "../sources/index.ts";

/**
 * Stops the session's source (`stop`) when the client goes away (`signal`); returns what ends
 * the link early, for a session that learns of its client's end another way.
 */
export function stopWith(signal: AbortSignal, stop: AbortController): () => void {
  const onAbort = () => stop.abort(signal.reason);
  const unlink = () => signal.removeEventListener("abort", onAbort);
  if (signal.aborted) onAbort();
  signal.addEventListener("abort", onAbort, { once: true });
  stop.signal.addEventListener("abort", unlink, { once: true });
  return () => {
    unlink();
    stop.signal.removeEventListener("abort", unlink);
  };
}

const ENDED: Promise<IteratorResult<SourceBatch>> = Promise.resolve({
  done: true,
  value: undefined,
});

/** One session's read of `source` from `cursor`, stopped when `client` (if any) aborts. */
export class SourceRead {
  readonly #stop = new AbortController();
  readonly #source: BatchSource;
  readonly #cursor: Cursor;
  readonly #ended: string;
  #it: AsyncIterator<SourceBatch> | undefined;
  #first: SourceBatch | undefined;
  #pulled: Promise<IteratorResult<SourceBatch>> | undefined;

  /** `ended` says why the source was stopped, once the session is over. */
  constructor(source: BatchSource, cursor: Cursor, client: AbortSignal | undefined, ended: string) {
    this.#source = source;
    this.#cursor = cursor;
    this.#ended = ended;
    if (client) stopWith(client, this.#stop);
  }

  /** True once the client went away or the read was released. */
  get stopped(): boolean {
    return this.#stop.signal.aborted;
  }

  /**
   * Opens the source and reads its first batch, kept for `first()`. A failure here, a source
   * that ends before a batch (`empty()` is then the error), or a first batch `check` throws at,
   * releases the read and is thrown: the request's HTTP error, as nothing was written yet.
   */
  async open(empty: () => Error, check?: (first: SourceBatch) => void): Promise<void> {
    try {
      this.#it = this.#source(this.#cursor, this.#stop.signal)[Symbol.asyncIterator]();
      const first = await this.#it.next();
      if (first.done) throw empty();
      check?.(first.value);
      this.#first = first.value;
    } catch (err) {
      this.release();
      throw err;
    }
  }

  /**
   * The batch `open` read, handed over once, also after a release: a session whose client left
   * meanwhile writes it to nothing rather than fail.
   */
  first(): SourceBatch {
    const first = this.#first;
    if (first === undefined) throw new Error("SourceRead.first: not opened, or already taken");
    this.#first = undefined;
    return first;
  }

  /**
   * The source's next batch: the same promise until `taken()`, so a race that a timer won leaves
   * the pull in flight for the next turn. Ended once released.
   */
  next(): Promise<IteratorResult<SourceBatch>> {
    const it = this.#it;
    if (it === undefined) return ENDED;
    if (this.#pulled === undefined) {
      this.#pulled = it.next();
      // A release's rejection may land after the session ended, when nobody awaits it.
      this.#pulled.catch(() => {});
    }
    return this.#pulled;
  }

  /** The batch `next()` gave was used: the next call pulls another. */
  taken(): void {
    this.#pulled = undefined;
  }

  /** Stops the source and ends its iterator; later calls do nothing. */
  release(): void {
    if (!this.#stop.signal.aborted) this.#stop.abort(new Error(this.#ended));
    const it = this.#it;
    this.#it = undefined;
    it?.return?.().catch(() => {});
  }
}
