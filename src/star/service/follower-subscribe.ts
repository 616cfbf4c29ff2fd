// Subscribe on a member that does not lead the stream (docs/fleet.md): it catches up from the
// settled chunks in storage, then passes on the leader's own Subscribe from where storage ended,
// message for message, with the reader's backpressure reaching the leader. When the leader's
// call ends, so does this one, with the leader's status (UNAVAILABLE when the leader is gone,
// after the records it acked are served from its log objects, or the log's damage instead):
// re-subscribing from the reader's cursor is the reader's job, as for any star going away.
// Starts that need the tail, and timestamps no settled record reaches, go to the leader as given.
import type { ServerWritableStream, ServiceError } from "@grpc/grpc-js";
import type { Stream__Output } from "../../gen/nova/v1/Stream.ts";
import type { SubscribeRequest__Output } from "../../gen/nova/v1/SubscribeRequest.ts";
import type {
  SubscribeResponse,
  SubscribeResponse__Output,
} from "../../gen/nova/v1/SubscribeResponse.ts";
import type { StarContext } from "../context.ts";
import { unavailable } from "../errors.ts";
import { forwardMetadata, isForwarded, relayError } from "../fleet/forward.ts";
import type { Member } from "../fleet/members.ts";
import { notOwner } from "../fleet/ownership.ts";
import { readPage, seqForTimestamp } from "../stream/chunk-reads.ts";
import { type FollowerView, withRetry } from "../stream/follower-view.ts";
import { pos } from "./follower-read.ts";
import { send } from "./send.ts";
import { leaderUnreachable, StoppedLeaderLog } from "./stopped-leader.ts";
import { position, record } from "./wire.ts";

type Call = ServerWritableStream<SubscribeRequest__Output, SubscribeResponse>;
type UpstreamRequest = {
  bucket: string;
  key: string;
  seq_num?: string;
  timestamp_ms?: string;
  tail_offset?: string;
  clamp: boolean;
};

export async function followerSubscribe(
  ctx: StarContext,
  stream: Stream__Output,
  call: Call,
  signal: AbortSignal,
): Promise<void> {
  const req = call.request;
  const leader = ctx.fleet.leaderOf(req.bucket, req.key);
  if (isForwarded()) throw notOwner(leader, `stream ${JSON.stringify(req.key)}`);
  const view = ctx.followers.view(stream.stream_id);
  const base = { bucket: req.bucket, key: req.key, clamp: req.clamp };

  let next: bigint;
  if (req.start === "seq_num") {
    next = BigInt(req.seq_num ?? "0");
  } else if (req.start === "timestamp_ms") {
    await view.ready();
    const extent = await view.extent();
    next = await seqForTimestamp(ctx.chunks, extent, BigInt(req.timestamp_ms ?? "0"));
    if (next >= extent.tail) {
      return relay(ctx, leader, view, call, { ...base, timestamp_ms: req.timestamp_ms }, signal);
    }
  } else {
    const start = req.start === "tail_offset" ? { tail_offset: req.tail_offset } : {};
    return relay(ctx, leader, view, call, { ...base, ...start }, signal);
  }

  await view.ready();
  for (let refreshed = false; !signal.aborted; ) {
    if (ctx.followers.shutdown.aborted) throw shuttingDown(ctx);
    const extent = await view.extent();
    if (next >= extent.tail) {
      // Records the leader reported past the listing are durable: list them once, then relay.
      if (refreshed || next >= view.knownTail.seqNum) break;
      await view.refresh();
      refreshed = true;
      continue;
    }
    const records = await withRetry(view, extent, (e) =>
      readPage(ctx.chunks, e, next, {
        maxRecords: ctx.limits.readPageRecords,
        maxBytes: ctx.limits.readPageBytes,
      }),
    );
    const last = records[records.length - 1];
    if (!last) break;
    next = last.seqNum + 1n;
    refreshed = false;
    await send(call, { records: records.map(record), tail: position(view.knownTail) }, signal);
  }
  const cursor = { next };
  try {
    await relay(ctx, leader, view, call, { ...base, seq_num: next.toString() }, signal, cursor);
  } catch (err) {
    if (signal.aborted || ctx.followers.shutdown.aborted || !leaderUnreachable(err)) throw err;
    // The leader stopped: what it acked past the cursor is in its log objects. Served, then the
    // call ends as the leader's did; the reader re-subscribes from its cursor.
    await fromStoppedLeader(ctx, leader, view, call, cursor.next, signal);
    throw err;
  }
}

/** Sends the records storage holds from `next` on, from the chunks and the leader's log. */
async function fromStoppedLeader(
  ctx: StarContext,
  leader: Member,
  view: FollowerView,
  call: Call,
  next: bigint,
  signal: AbortSignal,
): Promise<void> {
  const log = await StoppedLeaderLog.read(ctx, leader, view);
  const bounds = { maxRecords: ctx.limits.readPageRecords, maxBytes: ctx.limits.readPageBytes };
  while (next < log.extent.tail && !signal.aborted) {
    const records = await log.page(next, bounds);
    const last = records.at(-1);
    if (!last) break;
    next = last.seqNum + 1n;
    await send(call, { records: records.map(record), tail: position(log.tail) }, signal);
  }
  if (!signal.aborted) log.reached(next);
}

/**
 * Passes the leader's Subscribe on until it ends, this call is cancelled, or the star stops;
 * `cursor.next` follows the records passed on.
 */
function relay(
  ctx: StarContext,
  leader: Member,
  view: FollowerView,
  call: Call,
  request: UpstreamRequest,
  signal: AbortSignal,
  cursor?: { next: bigint },
): Promise<void> {
  return new Promise((resolve, reject) => {
    if (ctx.followers.shutdown.aborted) {
      reject(shuttingDown(ctx));
      return;
    }
    // An abort listener never fires for a signal already aborted (the reader left while this
    // star looked the stream up): a leader's call opened now would outlive it.
    if (signal.aborted) {
      resolve();
      return;
    }
    const upstream = ctx.peers
      .client(leader)
      .Subscribe(request, forwardMetadata(ctx, call.metadata));
    // Settled here, not by the call's end: a call paused for a slow reader when the leader ended
    // emits 'end' only once resumed, and a cancel after its status emits nothing.
    const stop = () => {
      cleanup();
      // What the leader's call still holds is not passed on to a reader that left.
      upstream.removeAllListeners("data");
      upstream.cancel();
      resolve();
    };
    const shutdown = () => {
      cleanup();
      upstream.cancel();
      reject(shuttingDown(ctx));
    };
    const resume = () => upstream.resume();
    const cleanup = () => {
      signal.removeEventListener("abort", stop);
      ctx.followers.shutdown.removeEventListener("abort", shutdown);
      call.removeListener("drain", resume);
    };
    signal.addEventListener("abort", stop, { once: true });
    ctx.followers.shutdown.addEventListener("abort", shutdown, { once: true });
    call.on("drain", resume);
    upstream.on("data", (message: SubscribeResponse__Output) => {
      if (message.tail) view.learn(pos(message.tail));
      const last = message.records.at(-1);
      if (cursor && last) cursor.next = BigInt(last.seq_num) + 1n;
      if (!call.write(message)) upstream.pause();
    });
    upstream.on("error", (err: ServiceError) => {
      cleanup();
      if (signal.aborted) resolve();
      else reject(relayError(leader, err));
    });
    upstream.on("end", () => {
      cleanup();
      resolve();
    });
  });
}

const shuttingDown = (ctx: StarContext) =>
  unavailable(`star ${ctx.fleet.self.name} is shutting down; reconnect elsewhere`);
