// The star's retention round, every --retention-interval-ms: streams closed idle whose retention
// has work now open for it; every open stream that expired is deleted, the others trim by age and size, reclaim
// what trims left, and are deleted when empty by delete_on_empty; then logs unused for
// --stream-idle-close-ms close.
import type { StarContext } from "../context.ts";
import type { StreamLog } from "../stream/stream-log.ts";
import { hasExpired } from "./expiry.ts";
import { deleteExpired, deleteIfEmpty, openLedLog } from "./streams.ts";

export async function retentionRound(ctx: StarContext): Promise<void> {
  await openDue(ctx);
  const now = BigInt(ctx.now());
  for (const stream of await ctx.registry.openLogs()) {
    // Closed while the round went (a hand-back, a delete): not this star's to trim.
    if (stream.closed) continue;
    // One stream's failure (storage refusing its trim) does not hold the others' back.
    await retain(ctx, stream, now).catch((err: unknown) =>
      ctx.log.warn({ err, stream: stream.descriptor.stream_id }, "retention failed; retried"),
    );
  }
  if (ctx.limits.streamIdleCloseMs > 0) await ctx.registry.closeIdle(ctx.limits.streamIdleCloseMs);
}

async function retain(ctx: StarContext, stream: StreamLog, now: bigint): Promise<void> {
  if (hasExpired(stream.descriptor, ctx.uses, Number(now), true)) {
    await deleteExpired(ctx, stream.descriptor);
    return;
  }
  const point = stream.retentionPoint(now);
  if (point > stream.trimPoint) await stream.trimTo(point);
  await stream.reclaim();
  if (stream.emptyAndAged(now)) await deleteIfEmpty(ctx, stream);
}

/**
 * Opens each stream closed idle whose retention is due, from its descriptor as stored now (it
 * may have been deleted or moved to another member meanwhile); one that failed to open stays
 * due for the next round.
 */
async function openDue(ctx: StarContext): Promise<void> {
  for (const due of ctx.registry.dueStreams(BigInt(ctx.now()))) {
    const { bucket, key, stream_id } = due;
    try {
      const stored = ctx.fleet.leads(bucket, key)
        ? await ctx.catalog.getStream(bucket, key, { fresh: true })
        : undefined;
      if (stored?.stream_id !== stream_id || stored.deleted_at_unix_ms !== "0") {
        ctx.registry.forgetDormant(stream_id);
        continue;
      }
      await openLedLog(ctx, stored);
    } catch (err) {
      ctx.log.warn(
        { err, stream: stream_id },
        "opening a stream for its retention failed; retried",
      );
    }
  }
}
