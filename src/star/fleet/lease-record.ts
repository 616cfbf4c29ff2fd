// A member's lease object, `leases/<member>` (docs/fleet.md, "Leases"): written only with
// conditional PUTs, by the member itself (renewals, hand-backs) or by the member taking its
// log over (fencing). Every write changes `writes`, so every write has a new ETag.

export type LeaseState =
  /** The member holds its lease while it renews it. */
  | "live"
  /** `by` is voiding and replaying the member's log of `epoch`. */
  | "fencing"
  /** `by` has voided and replayed it: the member's streams are led by others. */
  | "fenced";

export interface LeaseRecord {
  member: string;
  /** The epoch whose log numbers the member writes (src/star/storage/keys.ts). */
  epoch: number;
  /**
   * The epoch since which the member has led its streams without being fenced: members that
   * led any of them before it must have handed them back since (`released`).
   */
  since: number;
  state: LeaseState;
  /** The member fencing, or that fenced, this epoch. */
  by?: string;
  /** Why the fencing member's replay of the log failed (a damaged log), while `fencing`. */
  failed?: string;
  /** Bumped by every write. */
  writes: number;
  /** Per other member, the `since` of it this member has handed its streams back to. */
  released: Record<string, number>;
}

export const leaseKey = (member: string) => `leases/${member}`;

export function encodeLease(r: LeaseRecord): Buffer {
  return Buffer.from(JSON.stringify(r));
}

const STATES = new Set<string>(["live", "fencing", "fenced"]);

/** The record a lease object holds; throws naming what is wrong (the object is damaged). */
export function decodeLease(key: string, bytes: Uint8Array): LeaseRecord {
  let r: Partial<LeaseRecord>;
  try {
    r = JSON.parse(Buffer.from(bytes).toString("utf8")) as Partial<LeaseRecord>;
  } catch (err) {
    throw new Error(`lease object ${key} is not JSON: ${(err as Error).message}`);
  }
  const count = (n: unknown) => Number.isSafeInteger(n) && (n as number) >= 0;
  const released = r.released as Record<string, unknown> | undefined;
  if (
    typeof r.member !== "string" ||
    !count(r.epoch) ||
    !count(r.since) ||
    !count(r.writes) ||
    typeof r.state !== "string" ||
    !STATES.has(r.state) ||
    (r.by !== undefined && typeof r.by !== "string") ||
    (r.failed !== undefined && typeof r.failed !== "string") ||
    typeof released !== "object" ||
    released === null ||
    !Object.values(released).every(count)
  ) {
    throw new Error(`lease object ${key} is not a lease record: ${JSON.stringify(r)}`);
  }
  return r as LeaseRecord;
}
