// Which streams to settle now (docs/storage-layout.md, "Settling"): a stream settles once it
// holds a read-sized chunk's worth of unsettled bytes, or once its oldest unsettled record is
// older than the time bound (quiet streams), and, while the star holds more unsettled bytes in
// memory than its cap, the largest of the rest too, so memory stays bounded with many streams.

export interface UnsettledStream {
  id: string;
  /** Content bytes acked but not yet in a chunk object. */
  bytes: number;
  /** When the oldest of them was acked (ms); undefined when none are unsettled. */
  oldestMs: number | undefined;
}

export interface SettlePolicy {
  /** Settle a stream once this many unsettled bytes make a chunk sized for reads. */
  chunkBytes: number;
  /** Settle a stream whose oldest unsettled record was acked this long ago. */
  maxAgeMs: number;
  /** The most unsettled bytes the star keeps in memory, all streams together. */
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
      kept += s.bytes;
    }
  }
  rest.sort((a, b) => b.bytes - a.bytes);
  for (const s of rest) {
    if (kept <= policy.maxUnsettledBytes) break;
    chosen.push(s.id);
    kept -= s.bytes;
  }
  return chosen;
}
