// The lease rules (docs/fleet.md, "Leases"), pure: when a member counts another's lease as
// lapsed, who leads in a member's view, when a member may lead its streams, and what it owes
// others. Time is the observer's own monotonic clock, never another member's.
import type { LeaseRecord } from "./lease-record.ts";

/**
 * When this member first read each lease object's current ETag. A lease has lapsed once the same
 * ETag has been read for a whole lease: its holder, which renews more often than that, stopped.
 * The holder counts its lease from before it sent the renewal, the observer from after it read
 * it, so the holder's lease always ends first.
 */
export class LeaseWatch {
  readonly #leaseMs: number;
  readonly #seen = new Map<string, { etag: string; at: number }>();

  constructor(leaseMs: number) {
    this.#leaseMs = leaseMs;
  }

  /**
   * Records a read of `member`'s lease object (undefined: there is none, which lapses alike: a
   * member that never joined is taken over a lease after it was first found missing).
   */
  observe(member: string, etag: string | undefined, now: number): void {
    const seen = etag ?? "";
    if (this.#seen.get(member)?.etag !== seen) this.#seen.set(member, { etag: seen, at: now });
  }

  /** The object read last has not changed for a whole lease. */
  lapsed(member: string, now: number): boolean {
    const seen = this.#seen.get(member);
    return seen !== undefined && now - seen.at >= this.#leaseMs;
  }
}

/**
 * The record of a member that has no lease object: one that never joined (or ran before
 * leases), presumed to lead its streams, from epoch 0, until it is taken over.
 */
export const neverJoined = (member: string): LeaseRecord => ({
  member,
  epoch: 0,
  since: 0,
  state: "live",
  writes: 0,
  released: {},
});

/**
 * The members that lead streams in this member's view: every member that is not fenced (one
 * whose lease lapsed still leads its streams until it is fenced, and one that never joined until
 * it is taken over, so no two members lead one stream). This member too, while it holds its
 * lease or has not been fenced: what everyone else counts it as leading it answers for itself
 * (UNAVAILABLE until it holds its lease), rather than sending callers to a member that does not
 * lead it either.
 */
export function viewOf(
  members: readonly string[],
  records: ReadonlyMap<string, LeaseRecord>,
  self: string,
  holding: boolean,
): string[] {
  return members
    .filter((m) => (m === self && holding) || records.get(m)?.state !== "fenced")
    .sort();
}

/**
 * The members in the view that have not yet handed `self`'s streams back to it since it began
 * leading them (`since`); it may lead none of its streams before this is empty.
 */
export function owingHandBack(
  self: LeaseRecord,
  records: ReadonlyMap<string, LeaseRecord>,
  view: readonly string[],
): string[] {
  return view.filter(
    (m) => m !== self.member && (records.get(m)?.released[self.member] ?? 0) < self.since,
  );
}

/** The members in the view this member owes a hand-back, with the `since` to hand back to. */
export function handBacksOwed(
  mine: LeaseRecord,
  records: ReadonlyMap<string, LeaseRecord>,
  view: readonly string[],
): { member: string; since: number }[] {
  return view.flatMap((m) => {
    const since = records.get(m)?.since ?? 0;
    if (m === mine.member) return [];
    return (mine.released[m] ?? 0) < since ? [{ member: m, since }] : [];
  });
}

/** Whether to take `record`'s member's log over: its lease, or a fencer's work on it, lapsed. */
export function shouldTakeOver(
  record: LeaseRecord,
  self: string,
  watch: LeaseWatch,
  now: number,
): boolean {
  return record.member !== self && record.state !== "fenced" && watch.lapsed(record.member, now);
}
