// One stream's producers: the entries the rules judge against, bounded by an idle expiry and a
// cap, and their JSON form in the stream's state object (docs/storage-layout.md, "Producers").
import { type BatchAck, type ProducerEntry, remember } from "./producer-rules.ts";

export interface ProducerLimits {
  /** A producer idle this long is forgotten (a later retry from it is refused as unknown). */
  ttlMs: number;
  /** Producers remembered per stream; a new one past it is refused until one expires. */
  maxPerStream: number;
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

  constructor(limits: ProducerLimits, stored: StoredProducers = {}) {
    this.#limits = limits;
    for (const [id, p] of Object.entries(stored)) this.#entries.set(id, parseEntry(p));
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
    if (this.#entries.size + starting < this.#limits.maxPerStream) return true;
    this.expire(nowMs);
    return this.#entries.size + starting < this.#limits.maxPerStream;
  }

  /** Applies an acknowledged batch (or a replayed mark, idempotently). */
  remember(id: string, epoch: bigint, ack: BatchAck, atMs: number): void {
    this.#entries.set(id, remember(this.#entries.get(id), epoch, ack, atMs));
  }

  /** Forgets producers idle for longer than the TTL. */
  expire(nowMs: number): void {
    for (const [id, e] of this.#entries) {
      if (nowMs - e.lastAtMs > this.#limits.ttlMs) this.#entries.delete(id);
    }
  }

  toJSON(): StoredProducers {
    const out: StoredProducers = {};
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
