// Appends taken and not yet answered, bounded in memory over every stream together
// (--appends-in-flight-mb). A batch waits in its stream's pacer and group commit, then in the
// star's log, until its log object is written: with a slow object store they would otherwise
// pile up without end, a megabyte each for one-MiB appends. Each counts its content and its records' objects, as unsettled records do. Past the bound an
// append is refused with RESOURCE_EXHAUSTED, retryable, and nothing of it is stored; an append
// alone always goes, whatever its size.
import { recordsMemory } from "../../platform/memory/index.ts";
import { resourceExhausted } from "../errors.ts";
import type { ValidBatch } from "./validate-batch.ts";

/** The memory a batch holds while it waits: its content and its records' objects. */
export const batchMemory = (batch: ValidBatch): number =>
  recordsMemory(batch.contentBytes, batch.records.length);

export class AppendBudget {
  readonly maxBytes: number;
  #held = 0;

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  /** Memory held by appends taken and not yet answered. */
  get held(): number {
    return this.#held;
  }

  /** Counts `bytes` until the returned function is called; throws RESOURCE_EXHAUSTED past the bound. */
  take(bytes: number): () => void {
    if (this.#held > 0 && this.#held + bytes > this.maxBytes) {
      throw resourceExhausted(
        `the star holds ${this.#held} bytes of appends not yet committed (at most ${this.maxBytes}, --appends-in-flight-mb): its object store is slower than the appends coming in; retry shortly`,
      );
    }
    this.#held += bytes;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.#held -= bytes;
    };
  }
}
