// A subscriber's source when subscriptions are shared: authorized on its own credentials, it
// follows its stream's hub from the cursor when the cursor lies in the hub's window, and catches
// up on its own source (history, then its own Subscribe) while it is behind, joining the hub as
// soon as it reaches the window; one that falls out of the window (it read too slowly) catches
// up the same way and joins again. Whatever the path, batches follow one another with no gap and
// no overlap, as source.ts promises.
import { status } from "@grpc/grpc-js";
import { HttpError, unavailable } from "../../errors/index.ts";
import type { Upstream } from "../../upstream/index.ts";
import { StarCallError } from "../../upstream/index.ts";
import type { BatchSource, BatchTap, Cursor, SourceBatch } from "../sources/index.ts";
import type { HubRegistry } from "./hub-registry.ts";
import type { ReadGrants } from "./read-grants.ts";
import { HubSubscriber, type StreamHub } from "./stream-hub.ts";
import { tokenExpiresAtMs } from "./token-expiry.ts";

/** What a shared subscription reports (counters in /metrics). */
export interface HubEvents {
  /** A subscriber started following a hub (hit) or had to catch up on its own first (miss). */
  joined(hit: boolean): void;
  /** A subscriber fell out of a hub's window. */
  detached(): void;
  /** A subscriber attached to a hub, or left it. */
  attached(delta: 1 | -1): void;
}

export interface SharedSourceOptions {
  registry: HubRegistry;
  upstream: Upstream;
  bucket: string;
  key: string;
  authorization?: string | undefined;
  /** The subscriber's own source, for catching up to the window (history, then Subscribe). */
  behind: BatchSource;
  /** Reads a star granted lately to this very credential: no CheckTail for those. */
  grants?: ReadGrants | undefined;
  events?: HubEvents;
}

/** How often a subscriber whose hub failed on credentials tries a new hub on its own. */
const REFUSED_HUB_RETRIES = 3;

export function sharedSource(opts: SharedSourceOptions): BatchSource {
  return (cursor, signal, tap) => subscribe(opts, cursor, signal, tap);
}

async function* subscribe(
  opts: SharedSourceOptions,
  cursor: Cursor,
  signal: AbortSignal,
  tap: BatchTap | undefined,
): AsyncGenerator<SourceBatch> {
  const checked = await authorize(opts, signal);
  if (!checked) {
    // The stream does not exist (yet): the subscriber's own Subscribe says what is right, and
    // may create it (create_stream_on_read).
    yield* opts.behind(cursor, signal);
    return;
  }
  const sub = new HubSubscriber(opts.authorization);
  const expiry = expireAt(sub, tokenExpiresAtMs(opts.authorization));
  const events = opts.events;
  let lease = opts.registry.acquire(opts.bucket, opts.key, sub);
  lease.hub.attach(sub);
  events?.attached(1);
  let retries = 0;
  let at = cursor;
  try {
    for (;;) {
      const hub = lease.hub;
      try {
        if (!hub.live) await untilAborted(hub.ready, signal);
        const seq = seqOf(at) ?? (isTail(at) ? await tailOf(hub, checked, sub, signal) : undefined);
        if (seq !== undefined && hub.contains(seq)) {
          events?.joined(true);
          const left = yield* hub.follow(sub, seq, signal, tap);
          if (left === undefined) return;
          events?.detached();
          at = { start: { seq_num: left.toString() }, clamp: false };
          continue;
        }
        events?.joined(false);
        const caught = yield* catchUp(opts.behind, at, hub, sub, signal);
        if (caught === undefined) return;
        at = caught;
      } catch (err) {
        signal.throwIfAborted();
        if (!refused(err) || sub.ended || ++retries > REFUSED_HUB_RETRIES) throw err;
        // The hub's feed ran on credentials the star no longer takes; if this subscriber's
        // still are, it opens a new hub on them.
        if (!(await authorize(opts, signal))) throw err;
        hub.detach(sub);
        lease.release();
        lease = opts.registry.acquire(opts.bucket, opts.key, sub);
        lease.hub.attach(sub);
      }
    }
  } finally {
    clearTimeout(expiry);
    lease.hub.detach(sub);
    lease.release();
    events?.attached(-1);
  }
}

/**
 * Reads the subscriber's own source from `at` until its cursor lies in the hub's window; then
 * the cursor, with the source stopped (undefined: the stream is closed and all of it was read).
 */
async function* catchUp(
  behind: BatchSource,
  at: Cursor,
  hub: StreamHub,
  sub: HubSubscriber,
  signal: AbortSignal,
): AsyncGenerator<SourceBatch, Cursor | undefined> {
  const stop = new AbortController();
  const onAbort = () => stop.abort(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  const it = behind(at, stop.signal)[Symbol.asyncIterator]();
  let seq = seqOf(at);
  try {
    for (;;) {
      sub.throwIfEnded();
      const step = await it.next();
      if (step.done) throw unavailable("the subscription ended; retry");
      const batch = step.value;
      const last = batch.records[batch.records.length - 1];
      if (last) seq = BigInt(last.seq_num) + 1n;
      else seq ??= BigInt(batch.tail?.seq_num ?? "0");
      yield batch;
      if (batch.closed) return undefined;
      if (batch.records.length === 0 && !hub.contains(seq) && seq > hub.next) {
        // Caught up with the stream before the hub heard of the same records: they are on
        // their way to it, so wait there rather than hold a Subscribe of one's own.
        await hub.reach(seq, sub, signal);
      }
      if (hub.contains(seq)) return { start: { seq_num: seq.toString() }, clamp: false };
    }
  } finally {
    signal.removeEventListener("abort", onAbort);
    stop.abort(new Error("joined the hub"));
    await it.return?.().catch(() => {});
  }
}

/** A subscriber the star let read: the tail its own CheckTail found, when it asked one. */
interface Checked {
  tail: bigint | undefined;
}

/**
 * Checks the subscriber's own read access with a star (CheckTail on its credentials) before it
 * reads anything a hub holds. Undefined: the stream does not exist.
 */
async function authorize(
  opts: SharedSourceOptions,
  signal: AbortSignal,
): Promise<Checked | undefined> {
  const { bucket, key, authorization, grants } = opts;
  const checked: Checked = { tail: undefined };
  // Most readers of a busy stream come on a credential a star let read it lately.
  if (grants?.has(authorization, bucket, key)) return checked;
  // Not cancelled with this reader: readers on the same credential may be waiting for it too.
  const ask = () =>
    opts.upstream.unary("CheckTail", { bucket, key }, { bucket, key, authorization }).then(
      (res) => {
        checked.tail = BigInt(res.tail?.seq_num ?? "0");
        return true;
      },
      (err) => {
        if (err instanceof StarCallError && err.code === status.NOT_FOUND) return false;
        throw err;
      },
    );
  const ok = await untilAborted(
    grants ? grants.check(authorization, bucket, key, ask) : ask(),
    signal,
  );
  return ok ? checked : undefined;
}

/**
 * Where a subscriber from the tail starts: the hub's head, or the tail the subscriber's own check
 * found if the hub has not yet heard of every record acked before it (it waits for them there),
 * so that it never gets a record acked before it asked. A subscriber admitted on a grant asked no
 * star: it starts at the hub's head.
 */
async function tailOf(
  hub: StreamHub,
  checked: Checked,
  sub: HubSubscriber,
  signal: AbortSignal,
): Promise<bigint> {
  const tail = checked.tail;
  if (tail === undefined || tail <= hub.next) return hub.next;
  await hub.reach(tail, sub, signal);
  return tail;
}

async function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  signal.throwIfAborted();
  let onAbort: (() => void) | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        onAbort = () => reject(signal.reason);
        signal.addEventListener("abort", onAbort, { once: true });
      }),
    ]);
  } finally {
    if (onAbort) signal.removeEventListener("abort", onAbort);
  }
}

/** Ends the subscriber when its token expires, as a star ends a Subscribe. */
function expireAt(sub: HubSubscriber, atMs: number | undefined): NodeJS.Timeout | undefined {
  const delay = atMs === undefined ? undefined : Math.max(0, atMs - Date.now());
  // Tokens live an hour at most; a later expiry is past what a timer holds.
  if (delay === undefined || delay > 2 ** 31 - 1) return undefined;
  const expired = () =>
    sub.end(
      new HttpError(
        401,
        "unauthenticated",
        "the token has expired; exchange a new one and reconnect",
      ),
    );
  const timer = setTimeout(expired, delay);
  timer.unref();
  return timer;
}

function refused(err: unknown): boolean {
  return (
    err instanceof StarCallError &&
    (err.code === status.UNAUTHENTICATED || err.code === status.PERMISSION_DENIED)
  );
}

function seqOf(cursor: Cursor): bigint | undefined {
  return "seq_num" in cursor.start ? BigInt(cursor.start.seq_num) : undefined;
}

function isTail(cursor: Cursor): boolean {
  return Object.keys(cursor.start).length === 0;
}
