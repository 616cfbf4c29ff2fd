// The live source: the fleet's Subscribe from a cursor, re-subscribed from the cursor when a
// star shuts down or restarts (UNAVAILABLE) or the stream's leader moves (NotOwner), with
// jittered backoff, so its consumer sees one unbroken sequence. The cursor is the seq_num after
// the last record yielded; a start by timestamp, offset or tail resolves to a seq_num with the
// first frame. The star's last frame of a closed stream ends the source.
import { setTimeout as sleep } from "node:timers/promises";
import { status } from "@grpc/grpc-js";
import type { SubscribeResponse__Output } from "../../../gen/nova/v1/SubscribeResponse.ts";
import { unavailable } from "../../errors/index.ts";
import type { ReadStart } from "../../translate/index.ts";
import type { Upstream } from "../../upstream/index.ts";
import {
  callFrames,
  connectionBroken,
  FleetError,
  notOwnerLeader,
  StarCallError,
} from "../../upstream/index.ts";
import { type Backoff, backoffDelayMs, DEFAULT_BACKOFF } from "./backoff.ts";
import type { BatchSource, Cursor, SourceBatch } from "./source.ts";

/** Told when an upstream Subscribe call starts and when it ends (a gauge in /metrics). */
export interface CallTracker {
  opened(): void;
  closed(): void;
}

export interface FleetSourceOptions {
  upstream: Upstream;
  bucket: string;
  key: string;
  authorization?: string;
  /** Re-subscribing gives up when no frame has come for this long; the last failure is thrown. */
  failoverMs: number;
  backoff?: Backoff;
  calls?: CallTracker;
}

export function fleetSource(opts: FleetSourceOptions): BatchSource {
  return (cursor, signal) => subscribeWithFailover(opts, cursor, signal);
}

async function* subscribeWithFailover(
  opts: FleetSourceOptions,
  cursor: Cursor,
  signal: AbortSignal,
): AsyncGenerator<SourceBatch> {
  const { upstream, bucket, key } = opts;
  const backoff = opts.backoff ?? DEFAULT_BACKOFF;
  let start: ReadStart = cursor.start;
  let clamp = cursor.clamp;
  let failingSince: number | undefined;
  let attempt = 0;
  for (;;) {
    let failure: unknown;
    try {
      const call = await upstream.subscribe(
        { bucket, key, ...start, clamp },
        { bucket, key, authorization: opts.authorization, signal },
      );
      track(call, opts.calls);
      for await (const frame of callFrames<SubscribeResponse__Output>(call, "Subscribe", signal)) {
        failingSince = undefined;
        attempt = 0;
        const last = frame.records[frame.records.length - 1];
        if (last) {
          start = { seq_num: (BigInt(last.seq_num) + 1n).toString() };
        } else if (
          !("seq_num" in start) ||
          (clamp && BigInt(frame.tail?.seq_num ?? "0") < BigInt(start.seq_num))
        ) {
          // A frame without records comes only once the star has caught up: its next is the tail
          // (below a start past it that the star clamped).
          start = { seq_num: frame.tail?.seq_num ?? "0" };
        }
        // Once resolved, the cursor is never beyond the star's tail; a clamp would hide data loss.
        clamp = false;
        const batch: SourceBatch = { records: frame.records, tail: frame.tail };
        if (frame.trim_point !== undefined) batch.trimPoint = BigInt(frame.trim_point);
        if (frame.closed) {
          yield { ...batch, closed: true };
          return;
        }
        yield batch;
      }
    } catch (err) {
      signal.throwIfAborted();
      if (!isFailover(err)) throw err;
      failure = err;
    }
    // Here the call failed over, or ended cleanly (which a star does not do while it serves).
    const now = Date.now();
    failingSince ??= now;
    if (now - failingSince >= opts.failoverMs) {
      throw failure ?? unavailable("the star kept ending the subscription; retry");
    }
    await sleep(backoffDelayMs(attempt++, backoff), undefined, { signal });
  }
}

/** Whether re-subscribing from the cursor elsewhere (or later) may succeed. */
export function isFailover(err: unknown): boolean {
  if (err instanceof StarCallError) {
    return (
      err.code === status.UNAVAILABLE || notOwnerLeader(err) !== undefined || connectionBroken(err)
    );
  }
  return (
    err instanceof FleetError &&
    (err.code === "redirects_exhausted" || err.code === "leader_unknown")
  );
}

function track(call: { once(event: "status", fn: () => void): unknown }, calls?: CallTracker) {
  if (!calls) return;
  calls.opened();
  call.once("status", () => calls.closed());
}
