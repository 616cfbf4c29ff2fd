// Stream-Cursor (the protocol's section on collapsing): the number of 20-second intervals since
// 2024-10-09T00:00:00Z, so clients waiting on one offset share a cache key per interval. A
// client that echoes a cursor at or past the current interval gets one strictly greater (by 1
// to 3600 s of random jitter), so a cache never serves it the same response again.
export const CURSOR_EPOCH_MS = Date.UTC(2024, 9, 9);
export const CURSOR_INTERVAL_MS = 20_000;
/** Jitter in whole intervals: 1 to 3600 s. */
const MAX_JITTER = 3600_000 / CURSOR_INTERVAL_MS;

export function nextCursor(
  nowMs: number,
  echoed: string | undefined,
  random: () => number = Math.random,
): string {
  const current = BigInt(Math.floor((nowMs - CURSOR_EPOCH_MS) / CURSOR_INTERVAL_MS));
  const client = echoed !== undefined && /^\d{1,20}$/.test(echoed) ? BigInt(echoed) : undefined;
  if (client === undefined || client < current) return current.toString();
  return (client + 1n + BigInt(Math.floor(random() * MAX_JITTER))).toString();
}
