// One stream's producers: the entries the rules judge against, bounded by an idle expiry, a cap
// per stream and the star's memory for producers (shared by every stream's table), and their
// JSON form in the stream's state object (docs/storage-layout.md, "Producers").
import type { ProducerMark } from "../../contract/codec/index.ts";
import { type ProducerEntry, remember } from "./producer-rules.ts";

export interface ProducerLimits {
  /** A producer idle this long is forgotten (a later retry from it is refused as unknown). */
  ttlMs: number;
  /** Producers remembered per stream; a new one past it is refused until one expires. */
  maxPerStream: number;
  /** The star's memory for producers, shared by every stream's table; absent: unbounded. */
  budget?: ProducerBudget;
}

/** Memory held by every stream's producers together, against the star's bound. */
export class ProducerBudget {
  readonly maxBytes: number;
  bytes = 0;

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }
}

// What an entry and each ack it remembers hold on V8's heap, measured (heapUsed after a full
// collection, over 100,000 producers of 1 and 8 acks): about 160 bytes an entry (its map slot,
// object, acks array and numbers) and 160 an ack (an object of four BigInts).
const ENTRY_BYTES = 160;
const ACK_BYTES = 160;

/** About what an entry holds in memory: its id, numbers and acks. */
function entryBytes(id: string, entry: ProducerEntry | undefined): number {
  return entry === undefined ? 0 : ENTRY_BYTES + id.length * 2 + entry.acks.length * ACK_BYTES;
}

/** An entry in the state object: uint64 values as exact decimal strings. */
export interface StoredProducer {
  epoch: string;
  seq: string;
  at_ms: number;
  /** [seq, start, end, timestamp_ms] per remembered ack, oldest first. */
  acks: [string, string, string, string][];
}

export type StoredProducers = Record<string, StoredProducer>;

export class ProducerTable {
  readonly #entries = new Map<string, ProducerEntry>();
  readonly #limits: ProducerLimits;
  /** The table's memory went back to the budget: it no longer counts there. */
  #released = false;

  constructor(limits: ProducerLimits, stored: StoredProducers = {}) {
    this.#limits = limits;
    // What the state object holds is kept whatever the budget: those producers were acked.
    for (const [id, p] of Object.entries(stored)) this.#set(id, parseEntry(p));
  }

  #set(id: string, entry: ProducerEntry | undefined): void {
    const budget = this.#limits.budget;
    if (budget && !this.#released) {
      budget.bytes += entryBytes(id, entry) - entryBytes(id, this.#entries.get(id));
    }
    if (entry === undefined) this.#entries.delete(id);
    else this.#entries.set(id, entry);
  }

  /**
   * Gives the table's memory back to the star's budget (the stream's log is closing). The
   * entries stay: a star shutting down may still settle a chunk and write the state object.
   */
  release(): void {
    const budget = this.#limits.budget;
    if (budget && !this.#released) {
      for (const [id, e] of this.#entries) budget.bytes -= entryBytes(id, e);
    }
    this.#released = true;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(id: string): ProducerEntry | undefined {
    return this.#entries.get(id);
  }

  /**
   * Whether a producer not yet remembered may start now, after forgetting the idle ones;
   * `starting`: new producers already admitted and not yet remembered.
   */
  admitsNew(nowMs: number, starting = 0): boolean {
    if (this.#fits(starting)) return true;
    this.expire(nowMs);
    return this.#fits(starting);
  }

  #fits(starting: number): boolean {
    const budget = this.#limits.budget;
    return (
      this.#entries.size + starting < this.#limits.maxPerStream &&
      (budget === undefined ||
        budget.bytes + starting * (ENTRY_BYTES + ACK_BYTES) < budget.maxBytes)
    );
  }

  /** Applies a committed batch's producer mark (again, on replay: idempotently). */
  remember(m: ProducerMark, atMs: number): void {
    const ack = { seq: m.seq, start: m.start, end: m.end, timestampMs: m.timestampMs };
    this.#set(m.id, remember(this.#entries.get(m.id), m.epoch, ack, atMs));
  }

  /** Takes what a state written by another writer remembers beyond this table: forward only. */
  merge(stored: StoredProducers = {}): void {
    for (const [id, p] of Object.entries(stored)) {
      const other = parseEntry(p);
      let entry = this.#entries.get(id);
      for (const ack of other.acks) entry = remember(entry, other.epoch, ack, other.lastAtMs);
      if (entry !== this.#entries.get(id)) this.#set(id, entry);
    }
  }

  /** Forgets producers idle for longer than the TTL. */
  expire(nowMs: number): void {
    for (const [id, e] of this.#entries) {
      if (nowMs - e.lastAtMs > this.#limits.ttlMs) this.#set(id, undefined);
    }
  }

  toJSON(): StoredProducers {
    // No prototype: an id is any string, "__proto__" included, and must be an own key.
    const out: StoredProducers = Object.create(null);
    for (const [id, e] of this.#entries) {
      out[id] = {
        epoch: e.epoch.toString(),
        seq: e.seq.toString(),
        at_ms: e.lastAtMs,
        acks: e.acks.map((a) => [
          a.seq.toString(),
          a.start.toString(),
          a.end.toString(),
          a.timestampMs.toString(),
        ]),
      };
    }
    return out;
  }
}

function parseEntry(p: StoredProducer): ProducerEntry {
  return {
    epoch: BigInt(p.epoch),
    seq: BigInt(p.seq),
    lastAtMs: p.at_ms,
    acks: p.acks.map(([seq, start, end, ts]) => ({
      seq: BigInt(seq),
      start: BigInt(start),
      end: BigInt(end),
      timestampMs: BigInt(ts),
    })),
  };
}
