// Subscribe: batches from a start onward, then pending at the tail as records commit. A
// heartbeat (no records, the tail) marks catching up, keeps idle calls alive and tells of a trim
// (each response carries the trim point). Writes wait
// for the socket to drain, so a slow reader holds no more than one page here. A member that
// does not lead the stream serves it as follower-subscribe.ts describes. At the tail of a closed
// stream the last frame says so (closed, no records) and the call ends.
import type { ServerWritableStream } from "@grpc/grpc-js";
import type { SubscribeRequest__Output } from "../../gen/nova/v1/SubscribeRequest.ts";
import type { SubscribeResponse } from "../../gen/nova/v1/SubscribeResponse.ts";
import type { StarContext } from "../context.ts";
import { resourceExhausted, toServiceError } from "../errors.ts";
import { withCaller } from "../fleet/caller.ts";
import { resolveDescriptor, withLedLog } from "../lifecycle/streams.ts";
import type { StreamLog } from "../stream/stream-log.ts";
import { followerSubscribe } from "./follower-subscribe.ts";
import { aboveTrim, resolveStart } from "./read-start.ts";
import { send } from "./send.ts";
import { position, record } from "./wire.ts";

type Call = ServerWritableStream<SubscribeRequest__Output, SubscribeResponse>;

export function subscribeHandler(ctx: StarContext): (call: Call) => void {
  let active = 0;
  return (call) => {
    if (active >= ctx.limits.maxSubscriptions) {
      call.emit(
        "error",
        resourceExhausted(
          `the star's subscription cap of ${ctx.limits.maxSubscriptions} is reached`,
        ),
      );
      return;
    }
    active++;
    const abort = new AbortController();
    call.on("cancelled", () => abort.abort());
    const caller = { metadata: call.metadata, deadline: call.getDeadline(), signal: abort.signal };
    withCaller(caller, () => subscribe(ctx, call, abort.signal))
      .then(
        () => call.end(),
        (err: unknown) => {
          if (!abort.signal.aborted) call.emit("error", toServiceError(err, ctx.log));
        },
      )
      .finally(() => active--);
  };
}

async function subscribe(ctx: StarContext, call: Call, signal: AbortSignal): Promise<void> {
  const { bucket, key } = call.request;
  const stream = await resolveDescriptor(ctx, bucket, key, "read");
  if (!ctx.fleet.leads(bucket, key)) return followerSubscribe(ctx, stream, call, signal);
  // Not from memory while its lease may have lapsed (withLedLog checks it); held open while this
  // call lasts, also while a slow reader takes a page (no waiter then).
  return withLedLog(ctx, stream, (log) => follow(ctx, call, log, signal));
}

async function follow(ctx: StarContext, call: Call, log: StreamLog, signal: AbortSignal) {
  let next = await resolveStart(log, call.request);
  let caughtUp = false;
  while (!signal.aborted) {
    if (log.closeReason) throw log.closeReason;
    const records = await log.read(next, {
      maxRecords: ctx.limits.readPageRecords,
      maxBytes: ctx.limits.readPageBytes,
    });
    const last = records[records.length - 1];
    if (last) {
      next = last.seqNum + 1n;
      // The last page of a closed stream says so itself, as a unary Read's does, so a reader
      // that takes one page (a long-poll) learns it.
      const closed = log.sealed && next >= log.tail.seqNum;
      const page = frame(log, records.map(record));
      await send(call, closed ? { ...page, closed } : page, signal);
      if (closed) return;
      continue;
    }
    // Nothing from `next`: all of it below the trim point (trimmed since, or a start below a
    // trim that reached the tail) is gone, and the reader goes on from there.
    next = aboveTrim(next, log.trimPoint);
    // A commit landed while this page was read: read again.
    if (log.tail.seqNum > next) continue;
    if (log.sealed) {
      await send(call, { ...frame(log, []), closed: true }, signal);
      return;
    }
    if (!caughtUp) {
      caughtUp = true;
      await send(call, frame(log, []), signal);
    }
    await waitOrHeartbeat(ctx, call, log, next, signal);
  }
}

/** A response with the log's tail and trim point as they are now. */
function frame(log: StreamLog, records: SubscribeResponse["records"]): SubscribeResponse {
  return { records, tail: position(log.tail), trim_point: log.trimPoint.toString() };
}

async function waitOrHeartbeat(
  ctx: StarContext,
  call: Call,
  log: StreamLog,
  next: bigint,
  signal: AbortSignal,
): Promise<void> {
  const wait = new AbortController();
  const stop = () => wait.abort();
  signal.addEventListener("abort", stop, { once: true });
  const timer = setTimeout(stop, ctx.limits.subscribeHeartbeatMs);
  try {
    const changed = log.waitForChange(wait.signal);
    // A commit may have landed while this call was reading.
    if (log.tail.seqNum > next || log.closed || log.sealed) return;
    await changed;
    // A heartbeat: the wait ran out, or the trim point moved.
    if (!signal.aborted && log.tail.seqNum <= next && !log.closed && !log.sealed) {
      await send(call, frame(log, []), signal);
    }
  } finally {
    clearTimeout(timer);
    signal.removeEventListener("abort", stop);
    wait.abort();
  }
}
