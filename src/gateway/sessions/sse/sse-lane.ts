// One stream of an SSE session: reads its source from a cursor, cuts each batch to the stream's
// bounds (counted across reconnects), and keeps where the stream is: what it delivered, the
// next seq_num, the tail, whether it caught up. It makes no events; the session frames what a
// step delivers in its wire form (one stream, or several multiplexed).
import { contentBytes } from "../../../contract/codec/index.ts";
import type { Position__Output } from "../../../gen/nova/v1/Position.ts";
import type { Record__Output } from "../../../gen/nova/v1/Record.ts";
import type { Watchable } from "../../../platform/concurrency/index.ts";
import { type HttpError, toHttpError } from "../../errors/index.ts";
import type {
  Int64Mode,
  RecordFormat,
  ScratchJson,
  StreamPosition,
} from "../../translate/index.ts";
import { formatEventId, positionText, recordsJsonBytes } from "../../translate/index.ts";
import {
  type BatchSource,
  type BatchTap,
  type Cursor,
  isSinkIterator,
  type ReadSink,
  type SourceBatch,
} from "../sources/index.ts";
import {
  addTotals,
  type BatchTotals,
  type Bounds,
  batchTotals,
  boundsMet,
  cutBatch,
  staysOpen,
  type Tally,
  ZERO_TALLY,
} from "./bounds.ts";

export interface SseLaneOptions {
  source: BatchSource;
  /** Where reading starts, unless the session resumes. */
  cursor: Cursor;
  bounds: Bounds;
  /** Where a resumed session left this stream: the seq_num to read next and what it delivered. */
  resume?: StreamPosition;
  format: RecordFormat;
  int64: Int64Mode;
}

/** What one batch of a lane delivers. */
export interface LaneStep {
  /**
   * The records delivered: the event's bytes after its head, made once for every reader of a
   * hub, or the records' JSON and the tail's to frame.
   */
  delivered?: { rest: Uint8Array } | { json: ScratchJson; tail: string };
  /** A record that cannot be shown in this format, after those delivered. */
  failure?: HttpError;
  /** The bounds are met, or the stream is closed and read to its end: nothing more follows. */
  done: boolean;
  /** The lane has caught up with the tail for the first time. */
  caughtUp: boolean;
}

/** A lane's next read: a batch, the end of its source, or its failure. Never rejects. */
export interface LaneRead {
  lane: SseLane;
  result?: IteratorResult<SourceBatch>;
  error?: unknown;
}

/** What takes the batches a hub hands a lane while it waits (its session). */
export interface LaneTaps {
  /** How many of `batches` it took (see BatchTap). */
  tapped(lane: SseLane, batches: readonly SourceBatch[]): number;
}

export interface Next {
  seq_num: bigint;
  timestamp_ms: string;
}

export class SseLane implements Watchable<LaneRead>, BatchTap, ReadSink {
  readonly index: number;
  readonly #opts: Omit<SseLaneOptions, "source" | "cursor">;
  /** Where and how reading starts, until it has (open): not kept for the lane's life. */
  #start: Pick<SseLaneOptions, "source" | "cursor"> | undefined;
  #it: AsyncIterator<SourceBatch> | undefined;
  #taps: LaneTaps | undefined;
  /** A read is under way; its outcome, until taken; who is told when it settles. */
  #reading = false;
  #outcome: LaneRead | undefined;
  #listener: (() => void) | undefined;
  #tally: Tally;
  /** The step of the last batch taken whole, while #last and #tally are what it made them. */
  #step: WholeStep | undefined;
  /** The last record delivered, in this session or the one it resumes. */
  #last: bigint | undefined;
  #next: Next | undefined;
  #tail: Position__Output | null = null;
  #caughtUp = false;
  #closed = false;

  constructor(index: number, opts: SseLaneOptions) {
    this.index = index;
    const { source, cursor, ...kept } = opts;
    this.#opts = kept;
    this.#start = { source, cursor };
    const { resume } = opts;
    this.#tally = resume ? { count: resume.count, bytes: resume.bytes } : ZERO_TALLY;
    if (resume) {
      this.#next = { seq_num: resume.next, timestamp_ms: "0" };
      if (resume.next > 0n) this.#last = resume.next - 1n;
    }
  }

  get resumed(): boolean {
    return this.#opts.resume !== undefined;
  }

  /** A resumed lane whose count or bytes were delivered before: it needs no read at all. */
  get metBefore(): boolean {
    return this.resumed && boundsMet(this.#opts.bounds, this.#tally);
  }

  get caughtUp(): boolean {
    return this.#caughtUp;
  }

  get tail(): Position__Output | null {
    return this.#tail;
  }

  /** The stream is closed and the lane delivered all of it. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * The one-stream event id (the last record delivered and the tally, once there is one) as
   * text: lanes that took a batch in step share one string.
   */
  get lastIdText(): string | undefined {
    if (this.#last === undefined) return undefined;
    const step = this.#step;
    if (step?.id !== undefined) return step.id;
    const id = formatEventId({ seq_num: this.#last, ...this.#tally });
    if (step) step.id = id;
    return id;
  }

  /** Where the lane resumes: known from its first batch on. */
  get position(): StreamPosition {
    return { next: this.next.seq_num, ...this.#tally };
  }

  /** Where a following read would start. */
  get next(): Next {
    return this.#next ?? nextOf(this.#tail);
  }

  /**
   * Starts reading: where the resumed session left the stream, else at the cursor. A live hub
   * may hand batches to the lane while it waits at the head: they go to `taps` (its session).
   */
  open(signal: AbortSignal, taps?: LaneTaps): void {
    if (!this.#start) throw new Error("the lane is open already");
    const { source, cursor } = this.#start;
    this.#start = undefined;
    const { resume } = this.#opts;
    const from: Cursor = resume
      ? { start: { seq_num: resume.next.toString() }, clamp: false }
      : cursor;
    this.#taps = taps;
    this.#it = source(from, signal, taps ? this : undefined)[Symbol.asyncIterator]();
  }

  /** Batches a hub hands over while the lane waits (BatchTap): its session's to take. */
  deliver(batches: readonly SourceBatch[]): number {
    return this.#taps ? this.#taps.tapped(this, batches) : 0;
  }

  /**
   * Starts the lane's next read unless one is under way or not yet taken. The lane is its read's
   * watch (a read loop waits on it with no promise of its own): `settled`, `take`, `listen`.
   */
  read(): this {
    if (!this.#reading && !this.#outcome) {
      this.#reading = true;
      const it = this.#it as AsyncIterator<SourceBatch>;
      // A hub's follower hands its result over: the lane waits with no promise.
      if (isSinkIterator(it)) it.nextTo(this);
      else
        it.next().then(
          (result) => this.resolved(result),
          (error: unknown) => this.rejected(error),
        );
    }
    return this;
  }

  /** The read's result (ReadSink). */
  resolved(result: IteratorResult<SourceBatch>): void {
    this.#settle({ lane: this, result });
  }

  rejected(error: unknown): void {
    this.#settle({ lane: this, error });
  }

  /** The next read as a promise (a session's first, before it streams), taken when it settles. */
  first(): Promise<LaneRead> {
    this.read();
    if (this.#outcome) return Promise.resolve(this.take());
    return new Promise((resolve) => this.listen(() => resolve(this.take())));
  }

  get settled(): boolean {
    return this.#outcome !== undefined;
  }

  /** The settled read, consumed: the next `read` starts another. */
  take(): LaneRead {
    const outcome = this.#outcome;
    if (!outcome) throw new Error("the lane's read has not settled");
    this.#outcome = undefined;
    return outcome;
  }

  listen(listener: (() => void) | undefined): void {
    this.#listener = listener;
  }

  /**
   * Learns where the lane starts from its first batch, before any lane's events are made: the
   * ids of a multiplexed session's first events hold every stream's position, and a stream that
   * has delivered nothing yet resumes where it starts.
   */
  prime(batch: SourceBatch): void {
    if (batch.tail) this.#tail = batch.tail;
    const head = batch.records[0];
    this.#next ??= head ? { seq_num: BigInt(head.seq_num), timestamp_ms: "0" } : nextOf(this.#tail);
  }

  /** Applies one batch; `first` is the lane's first, before any byte of the response. */
  handle(batch: SourceBatch, first: boolean): LaneStep {
    this.prime(batch);
    const { records } = batch;
    if (records.length === 0) {
      if (batch.closed) {
        this.#closed = true;
        return { done: true, caughtUp: false };
      }
      if (this.#caughtUp) return { done: false, caughtUp: false };
      this.#caughtUp = true;
      return { done: false, caughtUp: true };
    }
    const cut = cutBatch(records, contentBytes, this.#opts.bounds, this.#tally);
    const whole = cut.take === records.length;
    const rest = whole ? this.#sharedRest(batch) : undefined;
    if (rest) {
      this.#delivered(records[records.length - 1] as Record__Output, cut.tally);
      if (batch.closed) this.#closed = true;
      return { delivered: { rest }, done: cut.done || this.#closed, caughtUp: false };
    }
    const { json, written, failure } = recordsJsonBytes(
      records.slice(0, cut.take),
      this.#opts.format,
      this.#opts.int64,
    );
    const error = failure === undefined ? undefined : toHttpError(failure);
    // A record that cannot be shown fails the request when nothing is sent yet.
    if (error && first && written === 0) throw error;
    const sent = records.slice(0, written);
    const last = sent[sent.length - 1];
    if (!error && whole && batch.closed) this.#closed = true;
    const step: LaneStep = { done: !error && (cut.done || this.#closed), caughtUp: false };
    if (last) {
      this.#delivered(last, error ? addTally(this.#tally, sent) : cut.tally);
      step.delivered = { json, tail: positionText(this.#tail, this.#opts.int64) };
    }
    if (error) step.failure = error;
    return step;
  }

  /**
   * A caught-up lane takes a hub batch that it delivers whole with its bounds still open: the
   * fast path. Its event's shared bytes, after the reader's head; undefined, with nothing
   * changed, for any other batch.
   */
  takeWhole(batch: SourceBatch): Uint8Array | undefined {
    const { records } = batch;
    const last = records[records.length - 1];
    if (!last || !this.#caughtUp || batch.closed) return undefined;
    const whole = wholeOf(records, last);
    const step = stepOf(whole, this.#tally);
    if (!staysOpen(whole.totals, this.#opts.bounds, step.to)) return undefined;
    const rest = this.#sharedRest(batch);
    if (!rest) return undefined;
    this.prime(batch);
    this.#tally = step.to;
    this.#last = whole.last;
    this.#next = whole.next;
    this.#step = step;
    return rest;
  }

  /** Stops the source and with it the upstream call. */
  release(): void {
    const it = this.#it;
    this.#it = undefined;
    it?.return?.().catch(() => {});
  }

  #settle(outcome: LaneRead): void {
    this.#reading = false;
    this.#outcome = outcome;
    const listener = this.#listener;
    this.#listener = undefined;
    listener?.();
  }

  #delivered(last: Record__Output, tally: Tally): void {
    this.#step = undefined;
    this.#tally = tally;
    this.#last = BigInt(last.seq_num);
    this.#next = { seq_num: this.#last + 1n, timestamp_ms: last.timestamp_ms };
  }

  /** A hub batch's event after its head, made once for every subscriber in this mode. */
  #sharedRest(batch: SourceBatch): Uint8Array | undefined {
    if (!batch.shared || !batch.tail) return undefined;
    return batch.shared.rest(batch.records, batch.tail, this.#opts.format, this.#opts.int64);
  }
}

interface Whole {
  totals: BatchTotals;
  last: bigint;
  /** Shared by every lane that took the batch, so never changed. */
  next: Readonly<Next>;
  /** The step the last lane to take the batch made. */
  step?: WholeStep;
}

/**
 * A batch taken whole from one tally: the tally it leads to and its event id's text, made once
 * for the lanes that take it in step (the readers of a hub that started together), which spares
 * each of them the sums and the text (docs/subscriptions.md).
 */
interface WholeStep {
  from: Tally;
  to: Tally;
  id?: string;
}

function stepOf(whole: Whole, from: Tally): WholeStep {
  const known = whole.step;
  if (known && sameTally(known.from, from)) return known;
  const step: WholeStep = { from, to: addTotals(from, whole.totals) };
  whole.step = step;
  return step;
}

const sameTally = (a: Tally, b: Tally): boolean => a.count === b.count && a.bytes === b.bytes;

/** What a hub batch taken whole means to a lane, made once per batch for all of them. */
const wholes = new WeakMap<readonly Record__Output[], Whole>();

function wholeOf(records: readonly Record__Output[], last: Record__Output): Whole {
  let whole = wholes.get(records);
  if (!whole) {
    const seq = BigInt(last.seq_num);
    whole = {
      totals: batchTotals(records, contentBytes),
      last: seq,
      next: Object.freeze({ seq_num: seq + 1n, timestamp_ms: last.timestamp_ms }),
    };
    wholes.set(records, whole);
  }
  return whole;
}

function addTally(tally: Tally, records: Record__Output[]): Tally {
  let bytes = tally.bytes;
  for (const r of records) bytes += BigInt(contentBytes(r));
  return { count: tally.count + BigInt(records.length), bytes };
}

function nextOf(tail: Position__Output | null): Next {
  return { seq_num: BigInt(tail?.seq_num ?? "0"), timestamp_ms: tail?.timestamp_ms ?? "0" };
}
