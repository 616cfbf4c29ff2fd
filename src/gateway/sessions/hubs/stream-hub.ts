// One stream's live hub: a single upstream feed from the tail (the fleet's Subscribe with
// failover), shared by every subscriber of the stream in this gateway. The feed never waits for
// a subscriber: batches go into a bounded window (hub-ring.ts) that each subscriber reads at its
// own pace; one that falls out of the window leaves `follow` and catches up elsewhere. The feed
// runs on the credentials of one of its subscribers; a refusal of those (an expired token) moves
// it to another's, and each subscriber is authorized on its own before it attaches. When the
// stream is closed the feed ends; readers that reach the head get the closing batch and stop.
//
// The fast path: a reader waiting at the head with a tap gets the new batches handed to its tap
// in the hub's turn (the tap writes them to the socket, together when there are several), with
// no promise, generator step or timer per reader per batch. A tap that refuses (backpressure,
// bounds ending, a record it cannot show) wakes its reader, which takes the batches left on its
// own path and comes back when it waits again. A reader is one object (HubFollower), its own
// iterator: a subscriber that waits at the head holds that object and its one pending read.
// A fan-out hands a batch to the readers the turn has left (fanout-turns.ts: a budget every hub
// of the gateway shares) and yields to the event loop in between, so appends and new requests
// are served during a fan-out to thousands, or to many streams at once.
import { status } from "@grpc/grpc-js";
import type { Position__Output } from "../../../gen/nova/v1/Position.ts";
import { unavailable } from "../../errors/index.ts";
import { DEFAULT_FANOUT_SLICE } from "../../settings.ts";
import { StarCallError } from "../../upstream/index.ts";
import type { BatchTap, Cursor, ReadSink, SinkIterator, SourceBatch } from "../sources/index.ts";
import { FanoutTurns } from "./fanout-turns.ts";
import { HubRing, type RingEntry, type RingLimits } from "./hub-ring.ts";
import type { RingBudget } from "./ring-budget.ts";

/** The upstream feed from a cursor, on one credential. */
export type HubFeed = (
  cursor: Cursor,
  signal: AbortSignal,
  authorization: string | undefined,
) => AsyncIterable<SourceBatch>;

/**
 * One reader of a hub, with its own credentials and its own end (its token's expiry). Ended by a
 * field and one listener rather than an AbortController: every subscriber holds one.
 */
export class HubSubscriber {
  readonly authorization: string | undefined;
  #ended = false;
  #reason: unknown;
  /** The wait under way, told when the subscriber ends (one at a time). */
  #onEnd: (() => void) | undefined;

  constructor(authorization: string | undefined) {
    this.authorization = authorization;
  }

  /** This subscriber must stop. */
  get ended(): boolean {
    return this.#ended;
  }

  /** Throws the reason to tell its client, once ended. */
  throwIfEnded(): void {
    if (this.#ended) throw this.#reason;
  }

  end(reason: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#reason = reason;
    this.#onEnd?.();
  }

  /** Sets the one listener told when the subscriber ends, or clears it (undefined). */
  listen(onEnd: (() => void) | undefined): void {
    this.#onEnd = onEnd;
  }
}

/** What waits for a hub's next change: a follower at the head, or a wait in `reach`. */
interface HubWaiter {
  /** Where it waits, moved on by what its tap takes. */
  seq: bigint;
  tap: BatchTap | undefined;
  /** Still waiting: not yet fired. */
  readonly waiting: boolean;
  fire(): void;
}

const WAIT = Symbol("wait");

type FollowResult = IteratorResult<SourceBatch, bigint | undefined>;

/**
 * A subscriber following a hub from a seq_num inside its window: its batches in order, the
 * head's arrival marked once by a batch without records. Its own async iterator, written out
 * rather than a generator: a follower that waits at the head is this object and the one promise
 * of its pending read, with no suspended frame, and the hub hands its tap new batches directly.
 * It ends (done) with the seq_num where it fell out of the window, or undefined after the
 * closing batch of a closed stream; a subclass may go on instead (`afterLeft`, `afterFailure`, `afterEnd`).
 */
export class HubFollower
  extends HubSubscriber
  implements AsyncIterator<SourceBatch, bigint | undefined>, SinkIterator<FollowResult>, HubWaiter
{
  /** The seq_num it reads next; the hub moves it on by what the tap takes. */
  seq = 0n;
  tap: BatchTap | undefined;
  #hub: StreamHub | undefined;
  #signal: AbortSignal | undefined;
  #atHead = false;
  /** The closing batch is delivered: the next read ends. */
  #closing = false;
  /** The read that waits at the head: told when the hub fires. */
  #sink: ReadSink<FollowResult> | undefined;

  /** Starts following `hub` at `seq` (inside its window); `signal` stops it. */
  follow(hub: StreamHub, seq: bigint, signal: AbortSignal, tap?: BatchTap): this {
    this.#hub = hub;
    this.seq = seq;
    this.tap = tap;
    this.#atHead = false;
    this.#closing = false;
    this.#signal = signal;
    // The follower is its own listener: no closure per subscriber.
    signal.addEventListener("abort", this);
    return this;
  }

  get waiting(): boolean {
    return this.#sink !== undefined;
  }

  next(): Promise<FollowResult> {
    return new Promise((resolved, rejected) => this.nextTo({ resolved, rejected }));
  }

  /** Hands the next result to `sink`, at once or once the hub has it (SinkIterator). */
  nextTo(sink: ReadSink<FollowResult>): void {
    this.#deliver(this.#poll(), sink);
  }

  return(): Promise<FollowResult> {
    this.#leave();
    const sink = this.#sink;
    this.#sink = undefined;
    sink?.resolved({ done: true, value: undefined });
    return Promise.resolve({ done: true, value: undefined });
  }

  override end(reason: unknown): void {
    super.end(reason);
    this.fire();
  }

  /** The hub has something new for it (or it must stop): its pending read goes on. */
  fire(): void {
    const sink = this.#sink;
    if (!sink) return;
    this.#sink = undefined;
    this.#hub?.unpark(this);
    this.#deliver(this.#poll(), sink);
  }

  /** The abort of its signal. */
  handleEvent(): void {
    this.fire();
  }

  /** Fell out of the window at `seq`: what the read gives instead (here: the end, with seq). */
  protected afterLeft(seq: bigint): Promise<FollowResult> {
    return Promise.resolve({ done: true, value: seq });
  }

  /** Failed (the hub failed, the signal aborted, the subscriber ended): what the read gives. */
  protected afterFailure(err: unknown): Promise<FollowResult> {
    return Promise.reject(err);
  }

  /** Read the closed stream to its end: what the next read gives (here: the end). */
  protected afterEnd(): Promise<FollowResult> {
    return Promise.resolve({ done: true, value: undefined });
  }

  /** The next batch, or WAIT at the head; leaving or failing goes to the hooks above. */
  #poll(): FollowResult | Promise<FollowResult> | typeof WAIT {
    const hub = this.#hub;
    if (!hub) return { done: true, value: undefined };
    // After the closing batch the read ends, whatever the hub does since.
    if (this.#closing) {
      this.#leave();
      return this.afterEnd();
    }
    let at: RingEntry | "left" | "closed" | "head";
    try {
      this.#signal?.throwIfAborted();
      this.throwIfEnded();
      at = hub.at(this.seq);
    } catch (err) {
      this.#leave();
      return this.afterFailure(err);
    }
    if (at === "left") {
      const seq = this.seq;
      this.#leave();
      return this.afterLeft(seq);
    }
    if (at === "closed") {
      this.#closing = true;
      return { done: false, value: hub.closingBatch() };
    }
    if (at === "head") {
      if (this.#atHead) return WAIT;
      this.#atHead = true;
      return { done: false, value: hub.headBatch() };
    }
    this.#atHead = false;
    const seq = this.seq;
    this.seq = at.end;
    const value: SourceBatch =
      at.first === seq
        ? at.batch
        : { records: at.records.slice(Number(seq - at.first)), tail: at.tail };
    // The closing batch's records say so themselves, as the star's last frame does: a reader
    // that takes one batch (a long-poll) learns the stream is closed. The read ends after them.
    if (hub.endsAt(this.seq)) {
      this.#closing = true;
      return { done: false, value: { ...value, closed: true } };
    }
    return { done: false, value };
  }

  /** A result to `sink` now; at the head, the sink waits among the hub's waiters. */
  #deliver(got: FollowResult | Promise<FollowResult> | typeof WAIT, sink: ReadSink<FollowResult>) {
    if (got === WAIT) {
      this.#sink = sink;
      (this.#hub as StreamHub).park(this);
    } else if (got instanceof Promise) {
      got.then(
        (result) => sink.resolved(result),
        (err: unknown) => sink.rejected(err),
      );
    } else {
      sink.resolved(got);
    }
  }

  #leave(): void {
    this.#hub?.unpark(this);
    this.#hub = undefined;
    this.tap = undefined;
    this.#signal?.removeEventListener("abort", this);
    this.#signal = undefined;
  }
}

export interface HubLimits extends RingLimits {
  /** The readers a turn of the event loop serves, shared with the other hubs. */
  turns?: FanoutTurns;
  /** The bound of every hub's window together. */
  budget?: RingBudget;
}

export class StreamHub {
  readonly #feed: HubFeed;
  readonly #ring: HubRing;
  readonly #turns: FanoutTurns;
  /** A fan-out is under way (between slices); another batch came during it. */
  #fanning = false;
  #again = false;
  readonly #stop = new AbortController();
  readonly #subscribers = new Set<HubSubscriber>();
  /** Credentials a star refused for this stream: the feed does not go back to them. */
  readonly #refused = new Set<string | undefined>();
  readonly #ready: Promise<void>;
  #readyResolve!: () => void;
  #readyReject!: (err: unknown) => void;
  #live = false;
  #tail: Position__Output | null = null;
  #failure: unknown;
  /** The stream is closed: the window holds its last records, and the feed has ended. */
  #closed = false;
  #waiters = new Set<HubWaiter>();
  readonly #onEnd: (hub: StreamHub) => void;

  constructor(
    feed: HubFeed,
    limits: HubLimits,
    opener: HubSubscriber,
    onEnd: (hub: StreamHub) => void,
  ) {
    this.#feed = feed;
    this.#ring = new HubRing(limits, 0n, limits.budget);
    this.#turns = limits.turns ?? new FanoutTurns(DEFAULT_FANOUT_SLICE);
    this.#onEnd = onEnd;
    this.#ready = new Promise<void>((resolve, reject) => {
      this.#readyResolve = resolve;
      this.#readyReject = reject;
    });
    this.#ready.catch(() => {});
    void this.#pump(opener.authorization);
  }

  /** Resolves once the feed has its first frame (the window starts there); rejects if it fails. */
  get ready(): Promise<void> {
    return this.#ready;
  }

  /** The feed has its first frame and has not failed: `ready` has resolved. */
  get live(): boolean {
    return this.#live && this.#failure === undefined;
  }

  get ended(): boolean {
    return this.#failure !== undefined;
  }

  /** Whether a subscriber at `seq` can follow the hub from there. */
  contains(seq: bigint): boolean {
    return this.live && this.#ring.contains(seq);
  }

  /** The seq_num after the newest record the hub holds: where a tail subscriber starts. */
  get next(): bigint {
    return this.#ring.next;
  }

  /** The memory the hub's window holds. */
  get ringBytes(): number {
    return this.#ring.bytes;
  }

  get subscribers(): number {
    return this.#subscribers.size;
  }

  attach(sub: HubSubscriber): void {
    this.#subscribers.add(sub);
  }

  detach(sub: HubSubscriber): void {
    this.#subscribers.delete(sub);
  }

  /** Stops the feed; subscribers still following end as if the star had gone. */
  close(): void {
    this.#fail(unavailable("the subscription's hub closed; retry"));
    this.#stop.abort(new Error("the hub closed"));
  }

  /**
   * What a follower at `seq` reads (HubFollower): the window's batch holding it, "left" below
   * the window, "closed" after the closing batch's records, "head" when it is caught up. Throws
   * the hub's failure.
   */
  at(seq: bigint): RingEntry | "left" | "closed" | "head" {
    if (this.#failure !== undefined) throw this.#failure;
    if (seq < this.#ring.start) return "left";
    const entry = this.#ring.find(seq);
    if (entry) return entry;
    return this.#closed ? "closed" : "head";
  }

  /** Whether `seq` is the end of a closed stream, past the window's last records. */
  endsAt(seq: bigint): boolean {
    return this.#failure === undefined && this.at(seq) === "closed";
  }

  /** The batch a follower gets last, at the tail of a closed stream. */
  closingBatch(): SourceBatch {
    return { records: [], tail: this.#tail, closed: true };
  }

  /** The batch that tells a follower it has caught up. */
  headBatch(): SourceBatch {
    return { records: [], tail: this.#headTail() };
  }

  /** Waits for the hub's next change (fired once, then out of the waiters). */
  park(waiter: HubWaiter): void {
    this.#waiters.add(waiter);
  }

  unpark(waiter: HubWaiter): void {
    this.#waiters.delete(waiter);
  }

  /**
   * Resolves once the hub holds records up to `seq` (or it failed, the stream closed, or the
   * wait was aborted).
   */
  async reach(seq: bigint, sub: HubSubscriber, signal: AbortSignal): Promise<void> {
    const wakeup = new Wakeup(this, signal, sub);
    try {
      while (
        this.#failure === undefined &&
        !this.#closed &&
        this.#ring.next < seq &&
        !signal.aborted &&
        !sub.ended
      ) {
        await wakeup.wait();
      }
    } finally {
      wakeup.dispose();
    }
  }

  async #pump(authorization: string | undefined): Promise<void> {
    let cursor: Cursor = { start: {}, clamp: false };
    let credential = authorization;
    for (;;) {
      try {
        for await (const batch of this.#feed(cursor, this.#stop.signal, credential)) {
          this.#take(batch);
          if (this.#live) cursor = { start: { seq_num: this.#ring.next.toString() }, clamp: false };
        }
        if (this.#closed) return this.#onEnd(this);
        throw unavailable("the subscription ended; retry");
      } catch (err) {
        if (this.#stop.signal.aborted) return;
        const other = refusedCredentials(err) ? this.#otherCredential(credential) : undefined;
        if (other === undefined) return this.#fail(err);
        this.#refused.add(credential);
        credential = other.value;
      }
    }
  }

  #take(batch: SourceBatch): void {
    if (batch.tail) this.#tail = batch.tail;
    const head = batch.records[0];
    if (!this.#live) {
      this.#live = true;
      this.#ring.reset(head ? BigInt(head.seq_num) : BigInt(batch.tail?.seq_num ?? "0"));
      this.#readyResolve();
    }
    if (batch.closed) {
      // Readers at the head are woken, not tapped: the closing batch goes their slow path.
      this.#closed = true;
      if (head) this.#takeRecords(batch, head);
      this.#wake();
      return;
    }
    if (head) this.#takeRecords(batch, head);
    // After the records: a frame's trim point is the star's when it sent them, theirs too.
    if (batch.trimPoint !== undefined) this.#ring.trimTo(batch.trimPoint);
  }

  #takeRecords(batch: SourceBatch, head: NonNullable<SourceBatch["records"][number]>): void {
    let records = batch.records;
    const first = BigInt(head.seq_num);
    const next = this.#ring.next;
    if (first > next) {
      // A trim moved the stream past the feed's cursor while it re-subscribed: the window
      // starts again there, and a reader below it catches up on its own (the star skips the
      // trimmed records for it too).
      this.#ring.reset(first);
    } else if (first < next) {
      records = records.slice(Number(next - first));
      if (records.length === 0) return;
    }
    this.#ring.push(records, batch.tail, performance.now());
    this.#fanOut();
  }

  /**
   * The tail a reader at the head is caught up to: the feed's last tail, unless that runs ahead
   * of the records the hub holds (a frame's tail counts records committed after its own, still
   * on their way); then the hub's head, so that no reader takes records it has not got for read.
   */
  #headTail(): Position__Output | null {
    const next = this.#ring.next;
    if (!this.#tail || BigInt(this.#tail.seq_num ?? "0") <= next) return this.#tail;
    const last = next > 0n ? this.#ring.find(next - 1n)?.records.at(-1) : undefined;
    return { seq_num: next.toString(), timestamp_ms: last?.timestamp_ms ?? "0" };
  }

  #otherCredential(failed: string | undefined): { value: string | undefined } | undefined {
    for (const sub of this.#subscribers) {
      const c = sub.authorization;
      if (c !== failed && !this.#refused.has(c) && !sub.ended) return { value: c };
    }
    return undefined;
  }

  #fail(err: unknown): void {
    if (this.#failure !== undefined) return;
    this.#failure = err;
    // Nothing reads the window of a hub that failed: its memory leaves the budget.
    this.#ring.close();
    this.#readyReject(err);
    this.#wake();
    this.#onEnd(this);
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = new Set();
    for (const w of waiters) w.fire();
  }

  /** Hands what is new to every waiting reader, a slice of readers per event-loop turn. */
  #fanOut(): void {
    if (this.#fanning) {
      this.#again = true;
      return;
    }
    this.#fanning = true;
    this.#slice([...this.#waiters], 0);
  }

  #slice(readers: HubWaiter[], from: number): void {
    // A failure woke every reader at once.
    if (this.#failure !== undefined) {
      this.#fanning = false;
      return;
    }
    // A fan-out with no reader left (or none at all) takes nothing of the turn.
    const served = from < readers.length ? this.#turns.take(readers.length - from) : 0;
    if (served === 0 && from < readers.length) {
      this.#turns.later(() => this.#slice(readers, from));
      return;
    }
    const end = from + served;
    // Most readers wait at the same seq_num: what is new from there is looked up once a slice.
    let pending: Pending | undefined;
    for (let i = from; i < end; i++) {
      const w = readers[i] as HubWaiter;
      if (!w.waiting) continue;
      if (w.tap && w.seq < this.#ring.next && pending?.from !== w.seq) {
        pending = this.#pendingFrom(w.seq);
      }
      if (!this.#tapped(w, pending) || this.#closed) w.fire();
    }
    if (end < readers.length) {
      this.#turns.later(() => this.#slice(readers, end));
      return;
    }
    this.#fanning = false;
    if (this.#again) {
      this.#again = false;
      this.#fanOut();
    }
  }

  /** Whether the reader's tap took every batch from its seq to the head (it waits on). */
  #tapped(w: HubWaiter, pending: Pending | undefined): boolean {
    const tap = w.tap;
    if (!tap) return false;
    if (w.seq >= this.#ring.next) return true;
    if (pending?.from !== w.seq) return false;
    const taken = offer(tap, pending.batches);
    if (taken > 0) w.seq = pending.ends[taken - 1] as bigint;
    return taken === pending.batches.length;
  }

  /** The batches from `seq` to the head, or undefined when `seq` does not start one. */
  #pendingFrom(seq: bigint): Pending | undefined {
    const batches: SourceBatch[] = [];
    const ends: bigint[] = [];
    for (let at = seq; at < this.#ring.next; ) {
      const entry = this.#ring.find(at);
      if (entry?.first !== at) return undefined;
      batches.push(entry.batch);
      ends.push(entry.end);
      at = entry.end;
    }
    return { from: seq, batches, ends };
  }
}

/** What is new for the readers waiting at `from`: the batches, and where each ends. */
interface Pending {
  from: bigint;
  batches: SourceBatch[];
  ends: bigint[];
}

/** How many batches a tap took (a tap that throws took none). */
function offer(tap: BatchTap, batches: readonly SourceBatch[]): number {
  try {
    return tap.deliver(batches);
  } catch {
    return 0;
  }
}

/** A wait in `reach` for the hub's next change, also ended when the reader must stop. */
class Wakeup implements HubWaiter {
  seq = 0n;
  tap: BatchTap | undefined;
  readonly #hub: StreamHub;
  readonly #signal: AbortSignal;
  readonly #sub: HubSubscriber;
  #resolve: (() => void) | undefined;
  readonly #onAbort = () => this.fire();

  constructor(hub: StreamHub, signal: AbortSignal, sub: HubSubscriber) {
    this.#hub = hub;
    this.#signal = signal;
    this.#sub = sub;
    signal.addEventListener("abort", this.#onAbort, { once: true });
    sub.listen(this.#onAbort);
  }

  get waiting(): boolean {
    return this.#resolve !== undefined;
  }

  /** Waits among the hub's waiters until fired (and leaves them then). */
  wait(): Promise<void> {
    this.#hub.park(this);
    return new Promise((resolve) => {
      this.#resolve = resolve;
    });
  }

  fire(): void {
    const resolve = this.#resolve;
    this.#resolve = undefined;
    this.#hub.unpark(this);
    resolve?.();
  }

  dispose(): void {
    this.#signal.removeEventListener("abort", this.#onAbort);
    this.#sub.listen(undefined);
    this.fire();
  }
}

/** The star refused the feed's credentials (expired, or without read on the stream). */
function refusedCredentials(err: unknown): boolean {
  return (
    err instanceof StarCallError &&
    (err.code === status.UNAUTHENTICATED || err.code === status.PERMISSION_DENIED)
  );
}
