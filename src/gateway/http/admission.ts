// Admission control for appends: the bytes of all in-flight append bodies are bounded. A request
// is admitted before its body is read (by its content-length, or the body limit when it has
// none), so one over the budget costs no memory: it gets a retryable 429.
import { resourceExhausted } from "../errors/index.ts";

export class AppendAdmission {
  readonly #max: number;
  #inflight = 0;

  constructor(maxBytes: number) {
    this.#max = maxBytes;
  }

  get inflight(): number {
    return this.#inflight;
  }

  /** Reserves `bytes` or throws 429; the first request is always admitted. */
  acquire(bytes: number): void {
    if (this.#inflight > 0 && this.#inflight + bytes > this.#max) {
      throw resourceExhausted(
        `the gateway has ${this.#inflight} bytes of appends in flight (budget ${this.#max}); retry shortly`,
      );
    }
    this.#inflight += bytes;
  }

  release(bytes: number): void {
    this.#inflight -= bytes;
  }
}
