// One SSE subscription to one stream or several (multiplexed): reads batches from each
// stream's source (a lane), applies each stream's bounds (counted across reconnects through the
// event id), and writes the contract's events to the client with backpressure. While the socket
// does not drain nothing more is pulled from any source (which pauses the upstream calls); a
// client stalled past the slow-consumer limit gets `error` slow_consumer with its resume id.
// Pings follow catch-up and idle periods; draining ends the stream with a jittered `retry:`.
// Whatever ends the session releases every upstream call at once.

import { HttpError, unavailable } from "../../errors/index.ts";
import { responseBuffers, type StreamOutput, takeResponseBuffer } from "../../http/index.ts";
import { DEFAULT_SEND_TIMEOUT_MS, DEFAULT_SSE_PING_MS } from "../../settings.ts";
import type { EventId, Int64Mode, RecordFormat, StreamPosition } from "../../translate/index.ts";
import { batchEventBytes, sseRetry } from "../../translate/index.ts";
import type { BatchSource, Cursor, SourceBatch } from "../sources/index.ts";
import { jitter } from "../sources/index.ts";
import { awaitDrain } from "./await-drain.ts";
import type { Bounds } from "./bounds.ts";
import { type LoopEnd, type LoopSteps, ReadLoop } from "./read-loop.ts";
import { stopWith } from "./source-read.ts";
import { ONE_STREAM, type SseForm } from "./sse-forms.ts";
import { type LaneRead, type LaneStep, type LaneTaps, SseLane } from "./sse-lane.ts";

/** The response as the session uses it (a ServerResponse, or its socket: http/chunk-writer). */
export type SseOutput = StreamOutput;

export interface SseTiming {
  /** The `retry:` sent first. */
  retryMs(): number;
  /** The `retry:` sent when the gateway drains: jittered, so clients do not return in step. */
  drainRetryMs(): number;
  /** How long after the last byte written the next idle ping goes out. */
  pingMs(): number;
  /**
   * How long a finished response that its client is not reading (a stalled one's last events,
   * slow_consumer among them) keeps its socket before it is destroyed: --send-timeout-ms, as
   * for any answer a client does not take.
   */
  endLingerMs: number;
}

/** Pings at most `pingMs` after the last byte, jittered down to 2/3 of it: not all in step. */
export function sseTiming(
  pingMs = DEFAULT_SSE_PING_MS,
  endLingerMs = DEFAULT_SEND_TIMEOUT_MS,
): SseTiming {
  return {
    retryMs: () => jitter(1_000, 2_000),
    drainRetryMs: () => jitter(500, 5_000),
    pingMs: () => jitter((pingMs * 2) / 3, pingMs),
    endLingerMs,
  };
}

export const DEFAULT_SSE_TIMING: SseTiming = sseTiming();

/** What a session keeps of its first events once they are written. */
const NO_CHUNKS: readonly Chunk[] = Object.freeze([]);

/** Stands for a client signal a running session no longer holds: it never aborts. */
const LET_GO = new AbortController().signal;

/** One stream of a session. */
export interface SseStream {
  source: BatchSource;
  /** Where reading starts, unless the session resumes. */
  cursor: Cursor;
  bounds: Bounds;
  /** Where the session this request resumes left the stream. */
  resume?: StreamPosition;
}

export interface SseSessionOptions {
  source: BatchSource;
  cursor: Cursor;
  bounds: Bounds;
  /** The Last-Event-ID this request resumes from. */
  resume?: EventId;
  /** Ends the session (`done`) after this long caught up with no new record; undefined: never. */
  waitMs?: number;
  format: RecordFormat;
  int64: Int64Mode;
  /** A socket that does not drain for this long ends the session with slow_consumer. */
  slowConsumerMs: number;
  /** Aborts when the client goes away. */
  signal: AbortSignal;
  timing?: SseTiming;
  onSlowConsumer?: () => void;
}

/** A multiplexed session: `streams` instead of one source, and their form. */
export interface MultiplexOptions
  extends Omit<SseSessionOptions, "source" | "cursor" | "bounds" | "resume"> {
  streams: SseStream[];
  form: SseForm;
}

/**
 * An event's text, or its UTF-8: a batch in a buffer from the response pool (given back once
 * written), or a hub batch's head and the rest every reader shares.
 */
type Chunk = string | Uint8Array | { head: string; rest: Uint8Array };

/** Told when a session's stream ends (its tracking). */
export interface RunEnd {
  end(): void;
}

/** A lane's failure, so that the error event can name its stream. */
class LaneFailure {
  readonly lane: SseLane;
  readonly error: unknown;
  constructor(lane: SseLane, error: unknown) {
    this.lane = lane;
    this.error = error;
  }
}

export class SseSession implements LoopSteps<LaneRead>, LoopEnd, LaneTaps {
  /** The settings kept for the session's life (the streams live on in their lanes). */
  readonly #opts: Omit<MultiplexOptions, "signal" | "streams">;
  /** The client's signal, until the response's close stands for it (run). */
  #clientSignal: AbortSignal;
  readonly #form: SseForm;
  readonly #lanes: SseLane[];
  /** The lanes with more to deliver: not done, not met before the session began. */
  #live: SseLane[];
  readonly #timing: SseTiming;
  /** Stops the sources: aborted whenever the session ends, however it ends. */
  readonly #stop = new AbortController();
  /** Where the fair turn among lanes with a batch ready starts. */
  #turn = 0;
  #idleSince = 0;
  #lastWrite = 0;
  #pingDelay = 0;
  #caughtUpSent = false;
  #first: readonly Chunk[] = NO_CHUNKS;
  #firstEnds = false;
  #draining = false;
  readonly #reader = new ReadLoop();
  #out: SseOutput | undefined;
  #finished = false;
  /** Counts writes, so a timer knows whether its deadline still holds. */
  #written = 0;
  /** The wait under way: whether its timer ends a `wait` session, and the writes before it. */
  #timerEndsWait = false;
  #writtenAtWait = 0;
  /** Lets the client's signal go (it stops the sources until the response's close does). */
  #unlink: (() => void) | undefined;
  /** Told once the loop has ended and the response is finished or closed. */
  #runEnd: RunEnd | undefined;
  #loopEnded = false;
  #outClosed = false;

  constructor(opts: SseSessionOptions | MultiplexOptions) {
    const { signal, streams, ...settings } = "streams" in opts ? opts : oneStream(opts);
    this.#opts = settings;
    this.#clientSignal = signal;
    this.#form = settings.form;
    this.#timing = opts.timing ?? DEFAULT_SSE_TIMING;
    this.#lanes = streams.map(
      (s, i) => new SseLane(i, { ...s, format: opts.format, int64: opts.int64 }),
    );
    this.#live = this.#lanes;
  }

  /**
   * Reads until every stream has something to send, before any byte is written: a failure here
   * is the request's HTTP error. "met": a resumed session whose bounds are all already met
   * (answer 204).
   */
  async start(): Promise<"stream" | "met"> {
    const signal = this.#clientSignal;
    // The same array when every lane is live: a filtered copy's spare room is kept for life.
    if (this.#lanes.some((lane) => lane.metBefore))
      this.#live = this.#lanes.filter((lane) => !lane.metBefore);
    if (this.#live.length === 0) return "met";
    this.#unlink = stopWith(signal, this.#stop);
    try {
      for (const lane of this.#live) lane.open(this.#stop.signal, this);
      const firsts = (await Promise.all(this.#live.map((lane) => lane.first()))).map((read) => {
        const batch = batchOf(read, "the subscription ended before it started");
        read.lane.prime(batch);
        return { lane: read.lane, batch };
      });
      const chunks: Chunk[] = [];
      for (const { lane, batch } of firsts) {
        const step = firstStep(lane, batch);
        if (step.done) {
          this.#end(lane);
          // Its bounds were met by the records the resumed session delivered: nothing to say.
          if (lane.resumed && !step.delivered) continue;
        }
        chunks.push(...this.#events(lane, step));
        if (step.failure) {
          this.#first = [
            ...chunks,
            this.#form.error(step.failure, this.#lanes, this.#opts.int64, lane),
          ];
          this.#firstEnds = true;
          return "stream";
        }
      }
      const live = this.#live.length > 0;
      if (!live && chunks.length === 0) {
        this.#release();
        return "met";
      }
      this.#caughtUpPing(chunks);
      this.#first = chunks;
      this.#firstEnds = !live;
      return "stream";
    } catch (err) {
      this.#release();
      if (signal.aborted) throw clientGone();
      throw err instanceof LaneFailure ? this.#form.startError(err.error, err.lane) : err;
    }
  }

  /**
   * Streams events until the session ends; `ended` is told once the response is finished or
   * gone. The session is its loop's end and its response's close listener: a subscriber holds
   * no promise for its run.
   */
  stream(out: SseOutput, ended: RunEnd): void {
    this.#out = out;
    this.#runEnd = ended;
    out.on("close", this.#onClose);
    // The response's close stops the sources from now on: the client's signal is let go.
    this.#unlink?.();
    this.#unlink = undefined;
    this.#clientSignal = LET_GO;
    try {
      this.#write([sseRetry(this.#timing.retryMs()), ...this.#first]);
      this.#first = NO_CHUNKS;
      if (this.#firstEnds) {
        this.#finish([]);
        this.finished();
      } else {
        this.#reader.start<LaneRead>(this, this);
      }
    } catch (err) {
      this.failed(err);
    }
  }

  /** The loop ended (LoopEnd): the sources stop; the run ends once the response is done. */
  finished(): void {
    this.#release();
    this.#loopEnded = true;
    const out = this.#out as SseOutput;
    if (this.#outClosed || out.writableFinished || out.destroyed) this.#endRun();
  }

  /** The loop failed (LoopEnd): the error event, unless the session already stopped. */
  failed(err: unknown): void {
    this.#failed(err);
    this.finished();
  }

  readonly #onClose = () => {
    this.#outClosed = true;
    this.#release();
    if (this.#loopEnded) this.#endRun();
  };

  #endRun(): void {
    const ended = this.#runEnd;
    this.#runEnd = undefined;
    ended?.end();
  }

  /** Stops the sources: the session ended, or its response could not start. Idempotent. */
  release(): void {
    this.#release();
  }

  /** Ends the stream with a jittered `retry:`, so EventSource reconnects to another gateway. */
  drain(): void {
    this.#draining = true;
    this.#reader.wake();
  }

  // The read loop's steps (read-loop.ts): the session is its own steps, which costs a
  // subscriber no closure.

  /** Before each wait: not once finished or draining; once the socket has drained. */
  ready(): boolean | Promise<boolean> {
    if (this.#finished) return false;
    if (this.#draining) {
      this.#finish([sseRetry(this.#timing.drainRetryMs())]);
      return false;
    }
    const out = this.#out as SseOutput;
    if (!out.writableNeedDrain) return true;
    return awaitDrain(out, this.#opts.slowConsumerMs, this.#reader).then((drained) => {
      if (drained === "closed") return false;
      if (drained === "slow") {
        this.#slowConsumer();
        return false;
      }
      return this.ready();
    });
  }

  /** The reads of the live lanes, for the loop to wait on. */
  reads(): SseLane | SseLane[] {
    const live = this.#live;
    if (live.length === 1) return (live[0] as SseLane).read();
    // Lanes whose batches are already there win in array order: start the turn elsewhere each
    // time, so that a busy stream cannot starve the others.
    const turn = this.#turn++ % live.length;
    return [...live.slice(turn), ...live.slice(0, turn)].map((lane) => lane.read());
  }

  /** The next ping, or the end of a caught-up `wait` session if that comes first. */
  wakeAt(): number {
    const waitEnds = this.#idleEnds();
    const pingAt = this.#lastWrite + this.#pingDelay;
    // Decided here, not by the clock when the timer fires: a timer may fire a millisecond
    // before Date.now() reaches its deadline.
    this.#timerEndsWait = waitEnds !== undefined && waitEnds <= pingAt;
    this.#writtenAtWait = this.#written;
    return this.#timerEndsWait ? (waitEnds as number) : pingAt;
  }

  timer(): boolean {
    // The tap wrote while the timer ran: both deadlines moved.
    if (this.#writtenAtWait !== this.#written) return true;
    if (this.#timerEndsWait) {
      this.#finish(this.#live.map((lane) => this.#form.done(lane, this.#opts.int64)));
      return false;
    }
    this.#write([this.#form.ping(this.#lanes, this.#opts.int64)]);
    return true;
  }

  read(got: LaneRead): boolean {
    this.#take(got);
    return !this.#finished;
  }

  /** A failure that ended the loop: the error event, unless the session already stopped. */
  #failed(err: unknown): void {
    if (this.#stop.signal.aborted) return;
    const lane = err instanceof LaneFailure ? err.lane : undefined;
    const cause = err instanceof LaneFailure ? err.error : err;
    this.#finish([this.#form.error(cause, this.#lanes, this.#opts.int64, lane)]);
  }

  /** Writes what a lane's read brings, or ends the session with it. */
  #take(got: LaneRead): void {
    const { lane } = got;
    const step = lane.handle(batchOf(got, "the subscription ended; retry"), false);
    const chunks = this.#events(lane, step);
    if (step.failure) {
      this.#finish([
        ...chunks,
        this.#form.error(step.failure, this.#lanes, this.#opts.int64, lane),
      ]);
      return;
    }
    if (step.done) {
      this.#end(lane);
      if (this.#live.length === 0) {
        this.#finish(chunks);
        return;
      }
    }
    this.#caughtUpPing(chunks);
    this.#write(chunks);
  }

  /**
   * The caught-up ping, once: when every stream still followed has caught up (the last one to
   * catch up, or a stream still catching up that ended). A ping for each stream would repeat
   * every tail as many times.
   */
  #caughtUpPing(chunks: Chunk[]): void {
    if (this.#caughtUpSent || this.#live.length === 0) return;
    if (!this.#live.every((lane) => lane.caughtUp)) return;
    this.#caughtUpSent = true;
    chunks.push(this.#form.ping(this.#lanes, this.#opts.int64));
  }

  /**
   * Hub batches handed over while the session waits on its lanes: those it takes whole (see
   * SseLane.takeWhole) are written at once, together, when the socket takes writes; the first it
   * cannot take, and those after it, come through the loop.
   */
  tapped(lane: SseLane, batches: readonly SourceBatch[]): number {
    const out = this.#out;
    if (!out || this.#finished || this.#draining || out.writableNeedDrain) return 0;
    const parts: (string | Uint8Array)[] = [];
    try {
      for (const batch of batches) {
        const rest = lane.takeWhole(batch);
        if (!rest) break;
        parts.push(this.#form.batchHead(this.#lanes, lane), rest);
      }
    } catch {
      // Taken or not, a batch is the lane's whole: what it could not take goes the loop's way,
      // where its failure is the reader's error event; those before it are written here.
    }
    if (parts.length === 0) return 0;
    writeEvents(out, parts);
    this.#wrote();
    this.#idleSince = this.#lastWrite;
    return parts.length / 2;
  }

  /** The events of one lane's step (its batch and done); an error is the caller's. */
  #events(lane: SseLane, step: LaneStep): Chunk[] {
    const chunks: Chunk[] = [];
    if (step.caughtUp) this.#idleSince = Date.now();
    const { delivered } = step;
    if (delivered) {
      this.#idleSince = Date.now();
      const head = this.#form.batchHead(this.#lanes, lane);
      if ("rest" in delivered) {
        chunks.push({ head, rest: delivered.rest });
      } else {
        chunks.push(batchEventBytes(head, delivered.json, delivered.tail, takeResponseBuffer));
      }
    }
    if (step.done) chunks.push(this.#form.done(lane, this.#opts.int64));
    return chunks;
  }

  #end(lane: SseLane): void {
    this.#live = this.#live.filter((l) => l !== lane);
    lane.release();
  }

  /** When a caught-up `wait` session ends with nothing new; undefined without one. */
  #idleEnds(): number | undefined {
    const { waitMs } = this.#opts;
    if (waitMs === undefined || !this.#live.every((lane) => lane.caughtUp)) return undefined;
    return this.#idleSince + waitMs;
  }

  #slowConsumer(): void {
    this.#opts.onSlowConsumer?.();
    const err = new HttpError(
      503,
      "slow_consumer",
      `the client read nothing for ${this.#opts.slowConsumerMs} ms; resume from last_event_id`,
      { retryable: true },
    );
    this.#finish([this.#form.error(err, this.#lanes, this.#opts.int64)]);
  }

  /** Writes events; the ping clock runs from the last byte written, so writing nothing keeps it. */
  #write(chunks: Chunk[]): void {
    if (chunks.length === 0) return;
    const out = this.#out as SseOutput;
    for (const chunk of chunks) {
      if (typeof chunk === "string") out.write(chunk);
      else if ("rest" in chunk) writeEvents(out, [chunk.head, chunk.rest]);
      else
        out.write(chunk, (err) => {
          if (!err) responseBuffers.give(chunk);
        });
    }
    this.#wrote();
  }

  #wrote(): void {
    this.#written++;
    this.#lastWrite = Date.now();
    this.#pingDelay = this.#timing.pingMs();
  }

  /**
   * Writes the last events whatever the backpressure (they are small), ends the response, and
   * gives a stalled client a while to come back and read them before the socket goes.
   */
  #finish(chunks: Chunk[]): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#release();
    const out = this.#out as SseOutput;
    if (out.destroyed) return;
    this.#write(chunks);
    endLingering(out, this.#timing.endLingerMs);
  }

  /** Stops every source and with them the upstream calls. */
  #release(): void {
    if (!this.#stop.signal.aborted) this.#stop.abort(new Error("the SSE session ended"));
    for (const lane of this.#lanes) lane.release();
  }
}

/**
 * Hub batches' events, each a reader's head and the shared rest: one chunk of them uncopied,
 * where the output can; else one buffer, a single piece for the socket to send.
 */
function writeEvents(out: SseOutput, parts: readonly (string | Uint8Array)[]): void {
  if (out.writeParts) {
    out.writeParts(parts);
    return;
  }
  out.write(Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p) : p))));
}

/** A one-stream session's options as a session of one lane. */
function oneStream(opts: SseSessionOptions): MultiplexOptions {
  const { source, cursor, bounds, resume, ...rest } = opts;
  const stream: SseStream = { source, cursor, bounds };
  if (resume)
    stream.resume = { next: resume.seq_num + 1n, count: resume.count, bytes: resume.bytes };
  return { ...rest, streams: [stream], form: ONE_STREAM };
}

/** A lane's first batch applied; a record it cannot show is thrown as the lane's failure. */
function firstStep(lane: SseLane, batch: SourceBatch): LaneStep {
  try {
    return lane.handle(batch, true);
  } catch (err) {
    throw new LaneFailure(lane, err);
  }
}

/** The read's batch; the end of a source or its failure is thrown as the lane's. */
function batchOf(read: LaneRead, endedMessage: string) {
  if ("error" in read) throw new LaneFailure(read.lane, read.error);
  const { result } = read;
  if (!result || result.done) throw new LaneFailure(read.lane, unavailable(endedMessage));
  return result.value;
}

/**
 * Ends a response; one the client is not reading (a stalled one's last events) keeps its socket
 * for `lingerMs` for the client to come back and read them, then the socket is destroyed.
 */
export function endLingering(out: SseOutput, lingerMs: number): void {
  out.end();
  if (!out.writableFinished) {
    const timer = setTimeout(() => out.destroy(), lingerMs);
    timer.unref();
    out.once("close", () => clearTimeout(timer));
  }
}

/** What a request whose client went away ends with (nobody reads it; it keeps logs quiet). */
export function clientGone(): HttpError {
  return new HttpError(499, "cancelled", "the client went away");
}
