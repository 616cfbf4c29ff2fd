// A lease object a member holds while it works on the log it names: another member's in a
// takeover, or its own replayed at a join. It is rewritten every quarter lease while the work
// lasts, like a lease, so no other member sees it lapse and starts the same work over.
import type { LeaseRecord } from "./lease-record.ts";

export interface Held {
  record: LeaseRecord;
  etag: string;
}

/** A conditional write: the new ETag, undefined when the condition failed. */
export type PutIf = (record: LeaseRecord, ifMatch: string) => Promise<string | undefined>;

export class HeldRecord {
  #current: Held;
  readonly #put: PutIf;
  readonly #leaseMs: number;
  #writes: Promise<boolean> = Promise.resolve(true);

  constructor(held: Held, put: PutIf, leaseMs: number) {
    this.#current = held;
    this.#put = put;
    this.#leaseMs = leaseMs;
  }

  /** The record as last written, and its ETag. */
  get current(): Held {
    return this.#current;
  }

  /**
   * Runs `work` with the record rewritten every quarter lease; then its value, and whether the
   * record is still this member's once the last write ended. A failed work is thrown.
   */
  async during<T>(work: () => Promise<T>): Promise<{ value: T; held: boolean }> {
    const beat = setInterval(() => void this.write((r) => r), this.#leaseMs / 4);
    let value: T;
    try {
      value = await work();
    } finally {
      clearInterval(beat);
    }
    return { value, held: await this.#writes };
  }

  /**
   * Writes the record changed by `change`, after the writes before it; false once a write found
   * the object changed by another member (it is not this member's to hold any more). A write
   * whose answer was lost is tried again with the next.
   */
  write(change: (r: LeaseRecord) => LeaseRecord): Promise<boolean> {
    this.#writes = this.#writes.then(async (ok) => {
      if (!ok) return false;
      const next = { ...change(this.#current.record), writes: this.#current.record.writes + 1 };
      const written = await this.#put(next, this.#current.etag).catch(() => null);
      if (written === undefined) return false;
      if (written !== null) this.#current = { record: next, etag: written };
      return true;
    });
    return this.#writes;
  }
}
