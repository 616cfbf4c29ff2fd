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
import type { BatchSource, BatchTap, Cursor, ReadSink, SourceBatch } from "../sources/index.ts";
import type { HubLease, HubRegistry } from "./hub-registry.ts";
import type { ReadGrants } from "./read-grants.ts";
import { HubFollower, type HubSubscriber, type StreamHub } from "./stream-hub.ts";
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

/** The stream a subscriber reads, and on which credential. */
export interface SharedStream {
  bucket: string;
  key: string;
  authorization?: string | undefined;
}

/**
 * What every shared subscription of a gateway reads through, made once: a subscriber keeps it,
 * not a copy, for as long as it is connected.
 */
export interface SharedSourceDeps {
  registry: HubRegistry;
  upstream: Upstream;
  /** The subscriber's own source, for catching up to the window (history, then Subscribe). */
  own(stream: SharedStream, cursor: Cursor, signal: AbortSignal): AsyncIterable<SourceBatch>;
  /** Reads a star granted lately to this very credential: no CheckTail for those. */
  grants?: ReadGrants | undefined;
  events?: HubEvents;
}

/** How often a subscriber whose hub failed on credentials tries a new hub on its own. */
const REFUSED_HUB_RETRIES = 3;

export function sharedSource(deps: SharedSourceDeps, stream: SharedStream): BatchSource {
  const { bucket, key, authorization } = stream;
  return (cursor, signal, tap) =>
    new SharedReader(deps, bucket, key, authorization, cursor, signal, tap);
}

const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };

/**
 * Where a reader is: checking its access (start), on its own source because the stream does not
 * exist (own), about to follow the hub or catch up to its window (join), following it, catching
 * up, or ended.
 */
type Phase = "start" | "own" | "join" | "follow" | "catch-up" | "done";

/**
 * One subscriber of a shared source, its own iterator: while it follows its hub a read is the
 * follower's (one object and one pending promise while it waits at the head); the other phases
 * are steps of `#advance`.
 */
class SharedReader extends HubFollower implements AsyncIterableIterator<SourceBatch>, SharedStream {
  readonly #deps: SharedSourceDeps;
  readonly bucket: string;
  readonly key: string;
  readonly #signal: AbortSignal;
  readonly #tap: BatchTap | undefined;
  #phase: Phase = "start";
  /**
   * Where the reader goes on from when it is not following (moved on by what it delivered);
   * undefined while it follows.
   */
  #at: Cursor | undefined;
  /** The tail the reader's own CheckTail found, when it asked one. */
  #checkedTail: bigint | undefined;
  #lease: HubLease | undefined;
  #expiry: NodeJS.Timeout | undefined;
  #retries = 0;
  /** The source read while not following: its own (the stream does not exist), or a catch-up. */
  #inner: AsyncIterator<SourceBatch, Cursor | undefined> | undefined;

  constructor(
    deps: SharedSourceDeps,
    bucket: string,
    key: string,
    authorization: string | undefined,
    cursor: Cursor,
    signal: AbortSignal,
    tap: BatchTap | undefined,
  ) {
    super(authorization);
    this.#deps = deps;
    this.bucket = bucket;
    this.key = key;
    this.#at = cursor;
    this.#signal = signal;
    this.#tap = tap;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  override next(): Promise<IteratorResult<SourceBatch>> {
    return this.#phase === "follow" ? super.next() : this.#advance();
  }

  override nextTo(sink: ReadSink): void {
    if (this.#phase === "follow") {
      super.nextTo(sink);
      return;
    }
    this.#advance().then(
      (result) => sink.resolved(result),
      (err: unknown) => sink.rejected(err),
    );
  }

  override return(): Promise<IteratorResult<SourceBatch>> {
    this.#close();
    return super.return();
  }

  protected override afterLeft(seq: bigint): Promise<IteratorResult<SourceBatch>> {
    this.#deps.events?.detached();
    this.#at = cursorAt(seq);
    this.#phase = "join";
    return this.#advance();
  }

  protected override afterFailure(err: unknown): Promise<IteratorResult<SourceBatch>> {
    this.#at = cursorAt(this.seq);
    this.#phase = "join";
    return this.#recovered(err);
  }

  protected override afterEnd(): Promise<IteratorResult<SourceBatch>> {
    this.#close();
    return Promise.resolve(DONE);
  }

  /** The reads after a failure while following, when the reader recovers from it. */
  async #recovered(err: unknown): Promise<IteratorResult<SourceBatch>> {
    try {
      await this.#recover(err);
    } catch (failure) {
      this.#close();
      throw failure;
    }
    return this.#advance();
  }

  /** The reads of every phase but following. */
  async #advance(): Promise<IteratorResult<SourceBatch>> {
    try {
      for (;;) {
        switch (this.#phase) {
          case "done":
            return DONE;
          case "start":
            await this.#start();
            break;
          case "own": {
            const step = await (this.#inner as AsyncIterator<SourceBatch>).next();
            if (this.#done) return DONE;
            if (step.done) {
              this.#close();
              return DONE;
            }
            return step;
          }
          case "join":
            try {
              await this.#join();
            } catch (err) {
              await this.#recover(err);
            }
            break;
          case "follow":
            return super.next();
          case "catch-up":
            try {
              const step = await (
                this.#inner as AsyncIterator<SourceBatch, Cursor | undefined>
              ).next();
              if (this.#done) return DONE;
              if (!step.done) {
                const last = step.value.records.at(-1);
                if (last) this.#at = cursorAt(BigInt(last.seq_num) + 1n);
                return step;
              }
              this.#inner = undefined;
              if (step.value === undefined) {
                this.#close();
                return DONE;
              }
              this.#at = step.value;
              this.#phase = "join";
            } catch (err) {
              this.#inner = undefined;
              this.#phase = "join";
              await this.#recover(err);
            }
            break;
        }
      }
    } catch (err) {
      this.#close();
      throw err;
    }
  }

  /** Checks the reader's access; a stream that does not exist (yet) is left to its own source. */
  async #start(): Promise<void> {
    const deps = this.#deps;
    const checked = await authorize(deps, this, this.#signal);
    if (this.#done) return;
    if (!checked) {
      // Its own Subscribe says what is right, and may create the stream (create_stream_on_read).
      this.#inner = deps
        .own(this, this.#at as Cursor, this.#signal)
        [Symbol.asyncIterator]() as AsyncIterator<SourceBatch, Cursor | undefined>;
      this.#phase = "own";
      return;
    }
    this.#checkedTail = checked.tail;
    this.#expiry = expireAt(this, tokenExpiresAtMs(this.authorization));
    this.#lease = deps.registry.acquire(this.bucket, this.key, this);
    this.#lease.hub.attach(this);
    deps.events?.attached(1);
    this.#phase = "join";
  }

  /** Follows the hub from `#at` when the window holds it; else starts catching up to it. */
  async #join(): Promise<void> {
    // A hub that failed while this reader caught up on its own: the stream's next one.
    if ((this.#lease as HubLease).hub.ended) this.#renewLease();
    const hub = (this.#lease as HubLease).hub;
    const signal = this.#signal;
    if (!hub.live) await untilAborted(hub.ready, signal);
    const at = this.#at as Cursor;
    const seq =
      seqOf(at) ?? (isTail(at) ? await tailOf(hub, this.#checkedTail, this, signal) : undefined);
    if (this.#done) return;
    // The client left while this waited for the hub: nothing to open for it.
    signal.throwIfAborted();
    if (seq !== undefined && hub.contains(seq)) {
      this.#deps.events?.joined(true);
      this.#phase = "follow";
      this.follow(hub, seq, signal, this.#tap);
      // Following, the reader is at `seq`: the cursor is made again if it leaves.
      this.#at = undefined;
      return;
    }
    this.#deps.events?.joined(false);
    // From the seq worked out: a reader from the tail whose hub failed while it waited for the
    // tail its own check found starts there, not at the tail of some moment later.
    const from = isTail(at) && seq !== undefined ? cursorAt(seq) : at;
    this.#inner = catchUp(this.#deps, this, from, hub, signal);
    this.#phase = "catch-up";
  }

  /**
   * After a failure: a hub whose feed ran on credentials the star no longer takes is left for a
   * new one on this reader's, if the star still takes those; any other failure is thrown.
   */
  async #recover(err: unknown): Promise<void> {
    this.#signal.throwIfAborted();
    if (!refused(err) || this.ended || ++this.#retries > REFUSED_HUB_RETRIES) throw err;
    if (!(await authorize(this.#deps, this, this.#signal))) throw err;
    if (this.#done || !this.#lease) return;
    this.#renewLease();
    this.#phase = "join";
  }

  /** Leaves the lease's hub for the stream's hub now, a new one when that one ended. */
  #renewLease(): void {
    const lease = this.#lease as HubLease;
    lease.hub.detach(this);
    lease.release();
    this.#lease = this.#deps.registry.acquire(this.bucket, this.key, this);
    this.#lease.hub.attach(this);
  }

  /** Ended meanwhile (returned, or failed): checked after every wait. */
  get #done(): boolean {
    return this.#phase === "done";
  }

  /** Ends the reader: its source stopped, its hub let go. */
  #close(): void {
    if (this.#done) return;
    this.#phase = "done";
    clearTimeout(this.#expiry);
    const inner = this.#inner;
    this.#inner = undefined;
    void inner?.return?.().catch(() => {});
    const lease = this.#lease;
    this.#lease = undefined;
    if (lease) {
      lease.hub.detach(this);
      lease.release();
      this.#deps.events?.attached(-1);
    }
  }
}

/**
 * Reads the subscriber's own source from `at` until its cursor lies in the hub's window; then
 * the cursor, with the source stopped (undefined: the stream is closed and all of it was read).
 * Caught up with the stream before the hub heard of the same records, it stops its own source
 * and waits at the hub for them (they are on their way there), rather than hold a Subscribe of
 * its own; if the hub gets past them before it looks (they left its window), it reads on its own
 * again from there.
 */
async function* catchUp(
  deps: SharedSourceDeps,
  reader: SharedStream & HubSubscriber,
  at: Cursor,
  hub: StreamHub,
  signal: AbortSignal,
): AsyncGenerator<SourceBatch, Cursor | undefined> {
  let from = at;
  for (;;) {
    const read = yield* readOwn(deps, reader, from, hub, signal);
    if (read.kind === "done") return read.cursor;
    await hub.reach(read.seq, reader, signal);
    // The wait also ends when the reader is gone: no Subscribe of its own for it then.
    signal.throwIfAborted();
    reader.throwIfEnded();
    // Its hub failed meanwhile: the reader joins the stream's next one from here.
    if (hub.contains(read.seq) || hub.ended) return cursorAt(read.seq);
    from = cursorAt(read.seq);
  }
}

/**
 * The subscriber's own source from `at`, until its cursor lies in the hub's window (done), or it
 * caught up with the stream ahead of the hub (wait, at that seq_num); the source is stopped then.
 */
async function* readOwn(
  deps: SharedSourceDeps,
  reader: SharedStream & HubSubscriber,
  at: Cursor,
  hub: StreamHub,
  signal: AbortSignal,
): AsyncGenerator<
  SourceBatch,
  { kind: "done"; cursor: Cursor | undefined } | { kind: "wait"; seq: bigint }
> {
  const stop = new AbortController();
  const onAbort = () => stop.abort(signal.reason);
  if (signal.aborted) onAbort();
  signal.addEventListener("abort", onAbort, { once: true });
  const it = deps.own(reader, at, stop.signal)[Symbol.asyncIterator]();
  let seq = seqOf(at);
  try {
    for (;;) {
      reader.throwIfEnded();
      const step = await it.next();
      if (step.done) throw unavailable("the subscription ended; retry");
      const batch = step.value;
      const last = batch.records[batch.records.length - 1];
      if (last) seq = BigInt(last.seq_num) + 1n;
      else {
        // Caught up: the reader is at the tail, below its start when the star clamped that.
        const tail = BigInt(batch.tail?.seq_num ?? "0");
        if (seq === undefined || tail < seq) seq = tail;
      }
      yield batch;
      if (batch.closed) return { kind: "done", cursor: undefined };
      if (batch.records.length === 0 && !hub.contains(seq) && seq > hub.next) {
        return { kind: "wait", seq };
      }
      // Its hub failed meanwhile: the reader joins the stream's next one from here.
      if (hub.contains(seq) || hub.ended) return { kind: "done", cursor: cursorAt(seq) };
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
  deps: SharedSourceDeps,
  stream: SharedStream,
  signal: AbortSignal,
): Promise<Checked | undefined> {
  const { bucket, key, authorization } = stream;
  const { grants, upstream } = deps;
  const checked: Checked = { tail: undefined };
  // Not cancelled with this reader: readers on the same credential may be waiting for it too.
  const ask = () =>
    upstream.unary("CheckTail", { bucket, key }, { bucket, key, authorization }).then(
      (res) => {
        checked.tail = BigInt(res.tail?.seq_num ?? "0");
        return true;
      },
      (err) => {
        if (err instanceof StarCallError && err.code === status.NOT_FOUND) return false;
        throw err;
      },
    );
  const got = grants ? grants.check(authorization, bucket, key, ask) : ask();
  // Most readers of a busy stream come on a credential a star let read it lately.
  if (got === true) return checked;
  const ok = await untilAborted(got, signal);
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
  tail: bigint | undefined,
  sub: HubSubscriber,
  signal: AbortSignal,
): Promise<bigint> {
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

function cursorAt(seq: bigint): Cursor {
  return { start: { seq_num: seq.toString() }, clamp: false };
}

function seqOf(cursor: Cursor): bigint | undefined {
  return "seq_num" in cursor.start ? BigInt(cursor.start.seq_num) : undefined;
}

function isTail(cursor: Cursor): boolean {
  return Object.keys(cursor.start).length === 0;
}
