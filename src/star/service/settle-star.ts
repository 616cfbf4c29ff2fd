// The admin plane's SettleStar and StarStats (docs/storage-layout.md, "Settling"): settle every
// record this star acked so far (its last run's included: replay first), and the figures of its
// log and settling.
import type { SettleStarResponse } from "../../gen/nova/v1/SettleStarResponse.ts";
import type { StarStatsResponse } from "../../gen/nova/v1/StarStatsResponse.ts";
import type { StarContext } from "../context.ts";

export async function settleStar(ctx: StarContext): Promise<SettleStarResponse> {
  await ctx.registry.replayed();
  const settled = await ctx.settler.settleAll();
  let records = 0;
  let bytes = 0;
  let chunks = 0;
  const streams = settled.map((s) => {
    records += s.records;
    bytes += s.bytes;
    chunks += s.chunks;
    const d = s.log.descriptor;
    return {
      bucket: d.bucket,
      key: d.key,
      stream_id: d.stream_id,
      settled_until: s.log.settledEnd.toString(),
      records: String(s.records),
      bytes: String(s.bytes),
    };
  });
  return {
    streams,
    records: String(records),
    bytes: String(bytes),
    chunks: String(chunks),
    log_objects_outstanding: String(ctx.wal.outstanding),
  };
}

export async function starStats(ctx: StarContext): Promise<StarStatsResponse> {
  let records = 0;
  let bytes = 0;
  let oldest: number | undefined;
  for (const log of await ctx.registry.openLogs()) {
    const u = log.unsettled;
    records += u.records;
    bytes += u.bytes;
    if (u.oldestMs !== undefined && (oldest === undefined || u.oldestMs < oldest)) {
      oldest = u.oldestMs;
    }
  }
  return {
    unsettled_records: String(records),
    unsettled_bytes: String(bytes),
    settle_lag_ms: String(oldest === undefined ? 0 : Math.max(0, ctx.now() - oldest)),
    log_objects_outstanding: String(ctx.wal.outstanding),
    object_store_puts: String(ctx.storeCounts.puts),
    object_store_gets: String(ctx.storeCounts.gets),
    object_store_deletes: String(ctx.storeCounts.deletes),
    log_objects_written: String(ctx.wal.puts),
    chunks_settled: String(ctx.settler.chunks),
    log_objects_torn: String(ctx.logs.stats.tornPassedOver),
    log_damage_errors: String(ctx.logs.stats.damageErrors),
    lease_held: ctx.lease?.stats.held ?? false,
    lease_epoch: String(ctx.lease?.stats.epoch ?? 0),
    lease_renewals: String(ctx.lease?.stats.renewals ?? 0),
    lease_takeovers: String(ctx.lease?.stats.takeovers ?? 0),
    leases_lost: String(ctx.lease?.stats.lost ?? 0),
    log_fenced_refusals: String(ctx.wal.fencedRefusals),
    open_streams: String(ctx.registry.counts.open),
    dormant_streams: String(ctx.registry.counts.dormant),
    streams_closed_idle: String(ctx.registry.counts.closedIdle),
    append_sessions: String(ctx.appendSessions.active),
    memory: ctx.memory.snapshot().map((part) => ({
      name: part.name,
      held_bytes: String(part.held),
      bound_bytes: String(part.bound),
    })),
  };
}
