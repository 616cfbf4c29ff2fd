// ReadPlan (docs/readplan.md): where the settled chunks from a start live, for readers that
// fetch object storage themselves. Served by every member: the leader from its log's chunk
// directory, another member from a listing of storage. Never creates a stream, never names the
// tail, never vends a chunk holding a trimmed record.

import { status } from "@grpc/grpc-js";
import type { ReadPlanEntry } from "../../gen/nova/v1/ReadPlanEntry.ts";
import type { ReadPlanRequest__Output } from "../../gen/nova/v1/ReadPlanRequest.ts";
import type { ReadPlanResponse } from "../../gen/nova/v1/ReadPlanResponse.ts";
import type { Stream__Output } from "../../gen/nova/v1/Stream.ts";
import type { StarContext } from "../context.ts";
import { invalidArgument, StarError } from "../errors.ts";
import { currentCaller } from "../fleet/caller.ts";
import { callMember } from "../fleet/forward.ts";
import { liveStream } from "../lifecycle/streams.ts";
import type { ChunkMeta } from "../stream/chunk-index.ts";
import { type Extent, seqForTimestamp } from "../stream/chunk-reads.ts";
import { planChunks } from "../stream/plan-chunks.ts";
import { leaderUnreachable } from "./stopped-leader.ts";

export async function readPlan(
  ctx: StarContext,
  req: ReadPlanRequest__Output,
): Promise<ReadPlanResponse> {
  if (req.start === undefined) {
    throw invalidArgument("ReadPlan needs a start: seq_num or timestamp_ms");
  }
  const stream = await liveStream(ctx, req.bucket, req.key);
  // A read that reached the leader, as one served from the plan's chunks is: an idle-expiring
  // stream read only through plans stays alive.
  if (ctx.fleet.leads(req.bucket, req.key)) ctx.uses.touch(stream, ctx.now());
  const settled = await settledExtent(ctx, stream);
  let extent = await settled();

  let start: bigint;
  if (req.start === "seq_num") {
    start = BigInt(req.seq_num ?? "0");
    if (start > extent.tail && (await beyondLeadersTail(ctx, stream, start))) {
      if (!req.clamp) {
        // Unlike Read's, this refusal carries no TailDetail: a plan never names the tail.
        throw new StarError(status.OUT_OF_RANGE, "start is beyond the stream's tail");
      }
      start = extent.tail;
    }
  } else {
    start = await seqForTimestamp(ctx.chunks, extent, BigInt(req.timestamp_ms ?? "0"));
    // The search awaited chunk reads: plan on the directory and trim point as they are now.
    extent = await settled();
  }

  const max = ctx.limits.readPlanMaxEntries;
  const limit = req.limit === 0 ? ctx.limits.readPlanDefaultEntries : Math.min(req.limit, max);
  const plan = planChunks(extent.index.chunks, start, extent.trim, limit);
  const now = ctx.now();
  // A plan and its URLs are the caller's read access: they expire with its token at the latest.
  const metadata = currentCaller()?.metadata;
  const notAfter =
    ctx.auth && metadata ? ctx.auth.authenticate(metadata).expiresAtMs : Number.POSITIVE_INFINITY;
  const vended = await Promise.all(plan.chunks.map((c) => entry(ctx, c, now, notAfter)));
  // The plan is good while every URL in it is.
  const expiresAt = vended.reduce(
    (min, v) => Math.min(min, v.validUntil),
    Math.min(now + ctx.readPlan.ttlSeconds * 1000, notAfter),
  );
  const last = plan.chunks.at(-1);
  return {
    entries: vended.map((v) => v.entry),
    ...(last ? { vended_until: (last.firstSeqNum + BigInt(last.count)).toString() } : {}),
    more: plan.more,
    expires_at_unix_ms: String(expiresAt),
  };
}

/**
 * Whether `start` lies past the stream's tail. A member that does not lead sees only the settled
 * chunks, so a start past them asks the leader (a plan from there is empty: Read serves it); a
 * leader that does not answer leaves the settled end as the tail.
 */
async function beyondLeadersTail(
  ctx: StarContext,
  stream: Stream__Output,
  start: bigint,
): Promise<boolean> {
  if (ctx.fleet.leads(stream.bucket, stream.key)) return true;
  const leader = ctx.fleet.leaderOf(stream.bucket, stream.key);
  try {
    const { tail } = await callMember(ctx, leader, "CheckTail", {
      bucket: stream.bucket,
      key: stream.key,
    });
    return start > BigInt(tail?.seq_num ?? "0");
  } catch (err) {
    if (leaderUnreachable(err)) return true;
    throw err;
  }
}

/**
 * The stream's settled extent as this member sees it: the leader's log as it is at each call,
 * or, on another member, a listing of storage made once for this plan.
 */
async function settledExtent(
  ctx: StarContext,
  stream: Stream__Output,
): Promise<() => Promise<Extent>> {
  if (ctx.fleet.leads(stream.bucket, stream.key)) {
    const log = await ctx.registry.open(stream);
    return async () => log.extent;
  }
  const view = ctx.followers.view(stream.stream_id);
  await view.refresh();
  const extent = await view.extent();
  return async () => extent;
}

async function entry(
  ctx: StarContext,
  c: ChunkMeta,
  now: number,
  notAfter: number,
): Promise<{ entry: ReadPlanEntry; validUntil: number }> {
  const payloadBytes = c.size - c.footerLength;
  const fields = {
    footer_off: payloadBytes.toString(),
    footer_len: c.footerLength,
    payload_bytes: payloadBytes.toString(),
    first_seq_num: c.firstSeqNum.toString(),
    min_timestamp_ms: c.minTimestampMs.toString(),
    max_timestamp_ms: c.maxTimestampMs.toString(),
  };
  const { ttlSeconds } = ctx.readPlan;
  if (ctx.readPlan.urls === "object") {
    const object = { storage_bucket: ctx.chunks.store.bucket, object_key: c.objectKey };
    return { entry: { object, ...fields }, validUntil: now + ttlSeconds * 1000 };
  }
  const { url, validUntil } = await ctx.chunks.urls.get(c.objectKey, ttlSeconds, now, notAfter);
  return { entry: { url, ...fields }, validUntil };
}
