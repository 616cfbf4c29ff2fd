// The unary calls a star is serving. A shutdown whose grace has run out answers each of them
// UNAVAILABLE (retryable: try another member) before it cuts the connections, where grpc-js's
// forceShutdown alone resets their streams without a status, which clients read as INTERNAL.
import type { StarError } from "../errors.ts";

export class RunningCalls {
  readonly #ends = new Set<(err: StarError) => void>();

  /** Tracks a call until the returned function is called; `end` answers it early. */
  track(end: (err: StarError) => void): () => void {
    this.#ends.add(end);
    return () => this.#ends.delete(end);
  }

  /** Answers every call still running with `err`. */
  endAll(err: StarError): void {
    for (const end of [...this.#ends]) end(err);
  }

  get size(): number {
    return this.#ends.size;
  }
}
