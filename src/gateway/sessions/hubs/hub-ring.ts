// A stream hub's window on the live feed: the most recent batches, consecutive by seq_num,
// bounded in batches, in the memory they hold (their records, copied into memory of their
// own, and the event encodings made from them), and in age: a steady stream's window holds its
// last minute or so rather than filling to its memory bound over a quarter of an hour. A subscriber whose cursor lies in the window
// reads from it; one whose cursor fell below it has to catch up elsewhere. The windows of all
// hubs together are bounded too (ring-budget.ts). Pure: no I/O.
import type { Position__Output } from "../../../gen/nova/v1/Position.ts";
import type { Record__Output } from "../../../gen/nova/v1/Record.ts";
import { compactRecords } from "../../../platform/memory/index.ts";
import type { SourceBatch } from "../sources/index.ts";
import type { BudgetedWindow, RingBudget } from "./ring-budget.ts";
import { SharedEncodings } from "./shared-encodings.ts";

export interface RingEntry {
  /** The first record's seq_num. */
  readonly first: bigint;
  /** The seq_num after the last record. */
  readonly end: bigint;
  readonly records: Record__Output[];
  readonly tail: Position__Output | null;
  /** The memory the batch holds: its records' bytes, then each encoding made of it. */
  bytes: number;
  /** What every reader that reads the whole batch gets: one object, its JSON made once. */
  readonly batch: SourceBatch;
  /** When it came (the caller's clock, ms). */
  readonly at: number;
}

/** A batch's own objects in the window (entry, batch, encodings map): measured on Node 24. */
export const BATCH_OBJECT_BYTES = 700;

export interface RingLimits {
  maxBatches: number;
  maxBytes: number;
  /** Batches older than this (before the newest's arrival) leave the window; absent: no bound. */
  maxAgeMs?: number;
}

export class HubRing implements BudgetedWindow {
  readonly #limits: RingLimits;
  /** The budget of every hub's window; undefined once the ring is closed. */
  #budget: RingBudget | undefined;
  #entries: RingEntry[] = [];
  #head = 0;
  #start = 0n;
  #next = 0n;
  #bytes = 0;
  /** Bumped by reset, so encodings of batches from before it are not counted. */
  #generation = 0;

  constructor(limits: RingLimits, next = 0n, budget?: RingBudget) {
    this.#limits = limits;
    this.#budget = budget;
    budget?.join(this);
    this.reset(next);
  }

  /** The ring is no longer kept (its hub ended): it leaves the budget. */
  close(): void {
    this.#budget?.leave(this);
    this.#budget = undefined;
  }

  /** The oldest seq_num the window still holds (== next when empty). */
  get start(): bigint {
    return this.#start;
  }

  /** The seq_num after the newest record. */
  get next(): bigint {
    return this.#next;
  }

  get size(): number {
    return this.#entries.length - this.#head;
  }

  /** The memory the window holds: its batches' records and the encodings made of them. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Empties the window, which then begins at `next`. */
  reset(next: bigint): void {
    this.#generation++;
    this.#entries = [];
    this.#head = 0;
    this.#start = next;
    this.#next = next;
    this.#add(-this.#bytes);
  }

  /** Whether a subscriber at `seq` can read from here: inside the window or at its head. */
  contains(seq: bigint): boolean {
    return seq >= this.#start && seq <= this.#next;
  }

  /**
   * Adds the next batch (its first record must be `next`) that came at `now`, its records copied
   * out of the larger buffers they were decoded from, then drops the oldest batches while the
   * window is over a bound, always keeping the newest.
   */
  push(received: Record__Output[], tail: Position__Output | null, now = 0): RingEntry {
    const head = received[0];
    if (!head) throw new Error("a ring entry needs records");
    const first = BigInt(head.seq_num);
    if (first !== this.#next) {
      throw new Error(`batch starts at ${first}, the ring expects ${this.#next}`);
    }
    const { records, held } = compactRecords(received);
    const generation = this.#generation;
    const entry: RingEntry = {
      first,
      end: first + BigInt(records.length),
      records,
      tail,
      at: now,
      bytes: held + BATCH_OBJECT_BYTES,
      batch: {
        records,
        tail,
        shared: new SharedEncodings((bytes) => {
          entry.bytes += bytes;
          // An encoding made after the batch left the window is the reader's, not the ring's.
          if (generation !== this.#generation || entry.end <= this.#start) return;
          this.#add(bytes);
          this.#shrink();
        }),
      },
    };
    this.#entries.push(entry);
    this.#next = entry.end;
    this.#add(entry.bytes);
    const { maxAgeMs } = this.#limits;
    if (maxAgeMs !== undefined) {
      while (this.size > 1 && (this.#entries[this.#head] as RingEntry).at < now - maxAgeMs) {
        this.#drop();
      }
    }
    this.#shrink();
    return entry;
  }

  /**
   * A trim: what lies below `seq` leaves the window (whole batches, and the start of the batch it
   * cuts), so that no reader joins or reads below it. At or past `next` the window is left empty
   * at `next`, where the feed goes on.
   */
  trimTo(seq: bigint): void {
    if (seq <= this.#start) return;
    if (seq >= this.#next) {
      this.reset(this.#next);
      return;
    }
    while ((this.#entries[this.#head] as RingEntry).end <= seq) this.#drop();
    this.#start = seq;
  }

  /** Drops the oldest batches until the window holds at most `bytes`, or only its newest. */
  shrinkTo(bytes: number): void {
    this.#shrink(Math.min(bytes, this.#limits.maxBytes));
  }

  /** Drops the oldest batches while the window is over a bound, always keeping the newest. */
  #shrink(maxBytes = this.#limits.maxBytes): void {
    while (this.size > 1 && (this.size > this.#limits.maxBatches || this.#bytes > maxBytes)) {
      this.#drop();
    }
    // Compact now and then so the array does not keep what was dropped.
    if (this.#head > 64 && this.#head * 2 > this.#entries.length) {
      this.#entries = this.#entries.slice(this.#head);
      this.#head = 0;
    }
  }

  #drop(): void {
    const old = this.#entries[this.#head++] as RingEntry;
    this.#start = old.end;
    this.#add(-old.bytes);
  }

  #add(bytes: number): void {
    this.#bytes += bytes;
    this.#budget?.changed(bytes, this);
  }

  /** The batch that holds `seq`, if the window does. */
  find(seq: bigint): RingEntry | undefined {
    if (seq < this.#start || seq >= this.#next) return undefined;
    // A reader at the head asks for the newest batch: every tapped reader, on every batch.
    let hi = this.#entries.length - 1;
    const newest = this.#entries[hi] as RingEntry;
    if (seq >= newest.first) return newest;
    let lo = this.#head;
    hi--;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const e = this.#entries[mid] as RingEntry;
      if (seq < e.first) hi = mid - 1;
      else if (seq >= e.end) lo = mid + 1;
      else return e;
    }
    return undefined;
  }
}
