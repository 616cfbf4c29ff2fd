// Rendezvous (highest random weight) hashing: each item goes to the member whose hash of
// (member, item) is highest. Removing a member moves only the items it held; adding one moves
// only the items it now wins. The hash is SHA-256, so every star computes the same leader.
import { createHash } from "node:crypto";

/** A member's weight for an item: the first 64 bits of SHA-256(member NUL item). */
export function weight(member: string, item: string): bigint {
  return createHash("sha256").update(member).update("\0").update(item).digest().readBigUInt64BE(0);
}

/** The member with the highest weight for `item` (ties, never seen in practice, to the smaller name). */
export function rendezvous<T extends { readonly name: string }>(
  members: readonly T[],
  item: string,
): T {
  let best: T | undefined;
  let bestWeight = -1n;
  for (const m of members) {
    const w = weight(m.name, item);
    if (w > bestWeight || (w === bestWeight && best !== undefined && m.name < best.name)) {
      best = m;
      bestWeight = w;
    }
  }
  if (best === undefined) throw new RangeError("rendezvous over no members");
  return best;
}

/** The item a stream hashes as. Bucket names hold no "/", so `bucket/key` is unambiguous. */
export const streamItem = (bucket: string, key: string) => `${bucket}/${key}`;

/** The item a bucket's own descriptor hashes as; it holds no "/", so it never equals a stream's. */
export const bucketItem = (bucket: string) => bucket;
