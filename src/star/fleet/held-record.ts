// A lease object a member holds while it works on the log it names: another member's in a
// takeover, or its own replayed at a join. Its lease keeper writes it every quarter lease while
// the work lasts, like a lease, so no other member sees it lapse and starts the same work over.
import type { LeaseRecord } from "./lease-record.ts";

export interface Held {
  record: LeaseRecord;
  etag: string;
}

/** A conditional write: the new ETag, undefined when the condition failed. */
export type PutIf = (record: LeaseRecord, ifMatch: string) => Promise<string | undefined>;

export class HeldRecord {
  #held: Held;
  readonly #put: PutIf;
  #writes: Promise<boolean> = Promise.resolve(true);
  readonly #beat: NodeJS.Timeout;

  constructor(held: Held, put: PutIf, leaseMs: number) {
    this.#held = held;
    this.#put = put;
    this.#beat = setInterval(() => void this.write((r) => r), leaseMs / 4);
  }

  /** The record as last written, and its ETag. */
  get held(): Held {
    return this.#held;
  }

  /**
   * Writes the record changed by `change`, after the writes before it; false once a write found
   * the object changed by another member (it is not this member's to hold any more). A write
   * whose answer was lost is tried again with the next.
   */
  write(change: (r: LeaseRecord) => LeaseRecord): Promise<boolean> {
    this.#writes = this.#writes.then(async (ok) => {
      if (!ok) return false;
      const next = { ...change(this.#held.record), writes: this.#held.record.writes + 1 };
      const written = await this.#put(next, this.#held.etag).catch(() => null);
      if (written === undefined) return false;
      if (written !== null) this.#held = { record: next, etag: written };
      return true;
    });
    return this.#writes;
  }

  /** Stops the beat; resolves to whether the object is still held, once the last write ended. */
  stop(): Promise<boolean> {
    clearInterval(this.#beat);
    return this.#writes;
  }
}
