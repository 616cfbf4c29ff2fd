// Voiding the log numbers a lost member may still write (docs/fleet.md, "Fencing"). A star has
// at most `inFlight` log numbers outstanding (PUT not yet ended), always among the last
// `inFlight` it allocated, and it acknowledges a number only once every lower one has ended.
// So after a listing whose highest number of the epoch is H, every number it may still write
// that matters is a missing one in (H - inFlight, H + 1]: voiding each of those (If-None-Match)
// leaves nothing it can still acknowledge, and everything it acknowledged is in the objects
// listed. A void that loses its race (the PUT landed first) sends the fence round again.
import { decodeLogVoid, encodeLogVoid, isOwnVoid } from "../../contract/codec/index.ts";
import type { ObjectStore } from "../../platform/objstore/index.ts";
import { epochOfLogNumber, firstLogNumber, logKey } from "../storage/keys.ts";
import { listLogNumbers } from "../wal/log-objects.ts";

export interface FenceResult {
  /** The numbers voided. */
  voided: bigint[];
}

export async function fenceLog(
  store: ObjectStore,
  member: string,
  epoch: number,
  inFlight: number,
  by: { member: string; epoch: number },
): Promise<FenceResult> {
  const voided: bigint[] = [];
  const ours = encodeLogVoid({ by: by.member, epoch: by.epoch });
  for (;;) {
    const present = new Set<bigint>();
    for (const { number } of await listLogNumbers(store, member)) {
      if (epochOfLogNumber(number) === epoch) present.add(number);
    }
    let highest = firstLogNumber(epoch) - 1n;
    for (const n of present) if (n > highest) highest = n;
    let from = highest - BigInt(inFlight) + 1n;
    if (from < firstLogNumber(epoch)) from = firstLogNumber(epoch);
    // A fence's void on top (an earlier fence's) already stops everything above it; a void the
    // log wrote itself (a PUT that failed) does not: the log goes on past it.
    const top = present.has(highest) ? await store.get(logKey(member, highest)) : undefined;
    const mark = top && decodeLogVoid(top);
    const to = mark && !isOwnVoid(mark, member, epoch) ? highest : highest + 1n;
    const missing: bigint[] = [];
    for (let n = from; n <= to; n++) if (!present.has(n)) missing.push(n);
    const written = await Promise.all(
      missing.map((n) => store.putIf(logKey(member, n), ours, { ifNoneMatch: "*" })),
    );
    voided.push(...missing.filter((_, i) => written[i] !== undefined));
    if (written.every((etag) => etag !== undefined)) return { voided };
  }
}
