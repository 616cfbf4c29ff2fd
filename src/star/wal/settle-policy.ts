// Which streams to settle now (docs/storage-layout.md, "Settling"): a stream settles once it
// holds a read-sized chunk's worth of unsettled content bytes, or once its oldest unsettled
// record is older than the time bound (quiet streams), and, while its unsettled records hold
// more memory than the star's cap, the largest of the rest too, so memory stays bounded with
// many streams, and with records that have little or no content.

export interface UnsettledStream {
  id: string;
  /** Content bytes acked but not yet in a chunk object. */
  bytes: number;
  /** The memory those records hold: their content and their objects. */
  memory: number;
  /** When the oldest of them was acked (ms); undefined when none are unsettled. */
  oldestMs: number | undefined;
}

export interface SettlePolicy {
  /** Settle a stream once this many unsettled bytes make a chunk sized for reads. */
  chunkBytes: number;
  /** Settle a stream whose oldest unsettled record was acked this long ago. */
  maxAgeMs: number;
  /** The most memory unsettled records may hold, all streams together. */
  maxUnsettledBytes: number;
}

export function streamsToSettle(
  streams: readonly UnsettledStream[],
  nowMs: number,
  policy: SettlePolicy,
): string[] {
  const chosen: string[] = [];
  const rest: UnsettledStream[] = [];
  let kept = 0;
  for (const s of streams) {
    if (s.oldestMs === undefined) continue;
    if (s.bytes >= policy.chunkBytes || nowMs - s.oldestMs >= policy.maxAgeMs) {
      chosen.push(s.id);
    } else {
      rest.push(s);
      kept += s.memory;
    }
  }
  rest.sort((a, b) => b.memory - a.memory);
  for (const s of rest) {
    if (kept <= policy.maxUnsettledBytes) break;
    chosen.push(s.id);
    kept -= s.memory;
  }
  return chosen;
}
