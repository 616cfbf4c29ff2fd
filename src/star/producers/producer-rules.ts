// The idempotent-producer rules (docs/producers.md), pure: what a batch stamped with a
// producer's (id, epoch, seq) gets against what the stream remembers of that producer, and how
// an acknowledged batch is remembered. `remember` is idempotent and only moves forward, so
// replay may apply a mark the snapshot already holds.
import { PRODUCER_ACKS_REMEMBERED } from "../../contract/wire-limits.ts";

/** A producer's stamp on one batch. uint64 values compared exactly, never as numbers. */
export interface ProducerClaim {
  id: string;
  epoch: bigint;
  seq: bigint;
}

/** Where an acknowledged batch landed: what a duplicate of it is answered with. */
export interface BatchAck {
  seq: bigint;
  start: bigint;
  end: bigint;
  timestampMs: bigint;
}

/** What a stream remembers of one producer. */
export interface ProducerEntry {
  epoch: bigint;
  /** The last acknowledged seq in `epoch`. */
  seq: bigint;
  /** The newest acks, oldest first, at most REMEMBERED_ACKS. */
  acks: BatchAck[];
  /** When the producer last appended (ms since the epoch): for the idle expiry. */
  lastAtMs: number;
}

/**
 * Acks kept per producer (Kafka keeps 5 batches per producer): a client whose connection drops
 * resends what was in flight, at most this many (the contract's limit).
 */
export const REMEMBERED_ACKS = PRODUCER_ACKS_REMEMBERED;

export type Verdict =
  | { kind: "accept" }
  | { kind: "duplicate"; ack: BatchAck }
  /** Appended earlier, but too long ago for its position to be remembered. */
  | { kind: "stale"; lastSeq: bigint }
  /** `unknown`: the stream remembers nothing of this producer (new, or idle past the TTL). */
  | { kind: "gap"; expected: bigint; unknown: boolean }
  | { kind: "fenced"; currentEpoch: bigint };

export function judge(entry: ProducerEntry | undefined, claim: ProducerClaim): Verdict {
  if (entry === undefined) {
    return claim.seq === 0n ? { kind: "accept" } : { kind: "gap", expected: 0n, unknown: true };
  }
  if (claim.epoch < entry.epoch) return { kind: "fenced", currentEpoch: entry.epoch };
  if (claim.epoch > entry.epoch) {
    return claim.seq === 0n ? { kind: "accept" } : { kind: "gap", expected: 0n, unknown: false };
  }
  if (claim.seq === entry.seq + 1n) return { kind: "accept" };
  if (claim.seq > entry.seq) return { kind: "gap", expected: entry.seq + 1n, unknown: false };
  const ack = entry.acks.find((a) => a.seq === claim.seq);
  return ack ? { kind: "duplicate", ack } : { kind: "stale", lastSeq: entry.seq };
}

/**
 * The entry after an acknowledged batch: a higher epoch starts afresh, a higher seq in the same
 * epoch is added, anything else (a mark already applied) leaves the entry as it was.
 */
export function remember(
  entry: ProducerEntry | undefined,
  epoch: bigint,
  ack: BatchAck,
  atMs: number,
): ProducerEntry {
  if (entry === undefined || epoch > entry.epoch) {
    return { epoch, seq: ack.seq, acks: [ack], lastAtMs: atMs };
  }
  if (epoch < entry.epoch || ack.seq <= entry.seq) return entry;
  const acks = [...entry.acks, ack].slice(-REMEMBERED_ACKS);
  return { epoch, seq: ack.seq, acks, lastAtMs: Math.max(atMs, entry.lastAtMs) };
}
