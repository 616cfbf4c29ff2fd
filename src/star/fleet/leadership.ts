// What a member does when leadership moves (docs/fleet.md, "Leases"): it hands a rejoining
// member's streams back with everything they hold settled, and it stops leading everything when
// it lost its lease.
import type { StarContext } from "../context.ts";
import { unavailable } from "../errors.ts";

/**
 * Closes every stream this star leads that is `member`'s in its view now, and settles what each
 * holds into chunks, so that `member` starts from storage with every acknowledged record. New
 * calls already go to `member` (the view changed first); what was in flight ends here.
 */
export async function handBackStreams(ctx: StarContext, member: string): Promise<void> {
  for (const log of await ctx.registry.openLogs()) {
    const { bucket, key, stream_id } = log.descriptor;
    if (ctx.fleet.leaderOf(bucket, key).name !== member) continue;
    log.close(
      unavailable(
        `stream ${JSON.stringify(key)} in bucket ${JSON.stringify(bucket)} is led by star ` +
          `${member} now; retry there`,
      ),
    );
    await log.drained();
    await log.settle();
    await ctx.registry.close(stream_id);
  }
}

/** The star lost its lease: every stream it led is closed; its log holds what they acked. */
export function stepDown(ctx: StarContext, reason: string): Promise<void> {
  return ctx.registry.dropAll(
    unavailable(`star ${ctx.id} ${reason}; retry, another member leads now`),
  );
}
