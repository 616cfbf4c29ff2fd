// One SSE subscription: reads batches from a source, applies the session's bounds (counted
// across reconnects through the event id), and writes the contract's events to the client with
// backpressure. While the socket does not drain nothing more is pulled from the source (which
// pauses the upstream call); a client stalled past the slow-consumer limit gets `error`
// slow_consumer with its resume id. Pings follow catch-up and idle periods; draining ends the
// stream with a jittered `retry:`. Whatever ends the session releases the upstream call at once.

import { contentBytes } from "../../contract/codec/index.ts";
import type { Position__Output } from "../../gen/nova/v1/Position.ts";
import type { Record__Output } from "../../gen/nova/v1/Record.ts";
import { errorBody, HttpError, toHttpError, unavailable } from "../errors/index.ts";
import { responseBuffers, takeResponseBuffer } from "../http/index.ts";
import type { Int64Mode, RecordFormat, ScratchJson } from "../json/index.ts";
import {
  batchEventBytes,
  batchEventHead,
  doneEvent,
  type EventId,
  errorEvent,
  formatEventId,
  pingEvent,
  positionText,
  positionToJson,
  recordsJsonBytes,
  sseRetry,
} from "../json/index.ts";
import { jitter } from "./backoff.ts";
import { type Bounds, boundsMet, cutBatch, type Tally, ZERO_TALLY } from "./bounds.ts";
import { pullNext, raceNext, stopWith } from "./next-batch.ts";
import type { BatchSource, Cursor, SourceBatch } from "./source.ts";

/** The response as the session uses it (a ServerResponse in the gateway). */
export interface SseOutput {
  /** `done` runs once the socket has taken the chunk (with an error when it could not). */
  write(chunk: string | Uint8Array, done?: (err?: Error | null) => void): boolean;
  end(): void;
  destroy(): void;
  once(event: "drain" | "close", listener: () => void): unknown;
  off(event: "drain" | "close", listener: () => void): unknown;
  readonly writableNeedDrain: boolean;
  readonly writableFinished: boolean;
  readonly destroyed: boolean;
}

export interface SseTiming {
  /** The `retry:` sent first. */
  retryMs(): number;
  /** The `retry:` sent when the gateway drains: jittered, so clients do not return in step. */
  drainRetryMs(): number;
  /** How long after the last byte written the next idle ping goes out. */
  pingMs(): number;
}

export const DEFAULT_LINGER_MS = 60_000;

/**
 * The longest a subscriber waits without a byte: under the idle timeouts balancers and proxies
 * use (30 s to 60 s; nginx proxy_read_timeout 60 s, HAProxy setups often 30 s), with room for a
 * ping to be late on a loaded machine, and rarely enough that idle pings cost next to nothing.
 */
export const DEFAULT_SSE_PING_MS = 15_000;

/** Pings at most `pingMs` after the last byte, jittered down to 2/3 of it: not all in step. */
export function sseTiming(pingMs = DEFAULT_SSE_PING_MS): SseTiming {
  return {
    retryMs: () => jitter(1_000, 2_000),
    drainRetryMs: () => jitter(500, 5_000),
    pingMs: () => jitter((pingMs * 2) / 3, pingMs),
  };
}

export const DEFAULT_SSE_TIMING: SseTiming = sseTiming();

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
  /**
   * How long a finished response that the client is not reading (a stalled one's last events,
   * slow_consumer among them) keeps its socket before it is destroyed. Default 60 s.
   */
  lingerMs?: number;
  /** Aborts when the client goes away. */
  signal: AbortSignal;
  timing?: SseTiming;
  onSlowConsumer?: () => void;
}

/**
 * An event's text, or its UTF-8: a batch in a buffer from the response pool (given back once
 * written), or in one of its own (a hub batch's head and shared rest).
 */
type Chunk = string | Uint8Array | { unpooled: Uint8Array };

interface Next {
  seq_num: bigint;
  timestamp_ms: string;
}

type Wake = "drain-request";

export class SseSession {
  readonly #opts: SseSessionOptions;
  readonly #timing: SseTiming;
  /** Stops the source: aborted whenever the session ends, however it ends. */
  readonly #stop = new AbortController();
  #it: AsyncIterator<SourceBatch> | undefined;
  #pending: Promise<IteratorResult<SourceBatch>> | undefined;
  #tally: Tally;
  #lastId: EventId | undefined;
  #next: Next | undefined;
  #tail: Position__Output | null = null;
  #caughtUp = false;
  #idleSince = 0;
  #lastWrite = 0;
  #pingDelay = 0;
  #first: Chunk[] = [];
  #firstEnds = false;
  #draining = false;
  #wakeDrain: ((w: Wake) => void) | undefined;
  #out: SseOutput | undefined;
  #finished = false;

  constructor(opts: SseSessionOptions) {
    this.#opts = opts;
    this.#timing = opts.timing ?? DEFAULT_SSE_TIMING;
    this.#tally = opts.resume
      ? { count: opts.resume.count, bytes: opts.resume.bytes }
      : { ...ZERO_TALLY };
    this.#lastId = opts.resume;
    if (opts.resume) this.#next = { seq_num: opts.resume.seq_num + 1n, timestamp_ms: "0" };
  }

  /**
   * Reads until there is something to send, before any byte is written: a failure here is the
   * request's HTTP error. "met": a resumed session whose bounds are already met (answer 204).
   */
  async start(): Promise<"stream" | "met"> {
    const { resume, bounds, signal } = this.#opts;
    if (resume && boundsMet(bounds, this.#tally)) return "met";
    stopWith(signal, this.#stop);
    try {
      this.#it = this.#opts.source(this.#opts.cursor, this.#stop.signal)[Symbol.asyncIterator]();
      const first = await this.#it.next();
      if (first.done) throw unavailable("the subscription ended before it started; retry");
      const { chunks, ends } = this.#handle(first.value, true);
      if (resume && ends && this.#lastId === resume) {
        this.#release();
        return "met";
      }
      this.#first = chunks;
      this.#firstEnds = ends;
      return "stream";
    } catch (err) {
      this.#release();
      throw signal.aborted ? clientGone() : err;
    }
  }

  /** Streams events until the session ends; resolves once the response is finished or gone. */
  async run(out: SseOutput): Promise<void> {
    this.#out = out;
    const closed = new Promise<void>((resolve) => out.once("close", resolve));
    const onClose = () => this.#release();
    out.once("close", onClose);
    try {
      this.#write([sseRetry(this.#timing.retryMs()), ...this.#first]);
      this.#first = [];
      if (this.#firstEnds) this.#finish([]);
      else await this.#loop();
    } catch (err) {
      if (!this.#stop.signal.aborted) this.#finish([this.#errorEvent(err)]);
    } finally {
      this.#release();
    }
    if (!out.writableFinished && !out.destroyed) await closed;
  }

  /** Ends the stream with a jittered `retry:`, so EventSource reconnects to another gateway. */
  drain(): void {
    this.#draining = true;
    this.#wakeDrain?.("drain-request");
  }

  async #loop(): Promise<void> {
    const out = this.#out as SseOutput;
    while (!this.#finished) {
      if (this.#draining) return this.#finish([sseRetry(this.#timing.drainRetryMs())]);
      if (out.writableNeedDrain) {
        const drained = await this.#awaitDrain(out);
        if (drained === "closed") return;
        if (drained === "slow") return this.#slowConsumer();
        continue;
      }
      this.#pending ??= pullNext(this.#it as AsyncIterator<SourceBatch>);
      const waitEnds = this.#waitEnds();
      const pingAt = this.#lastWrite + this.#pingDelay;
      const wakeAt = waitEnds === undefined ? pingAt : Math.min(pingAt, waitEnds);
      const got = await raceNext(this.#pending, wakeAt - Date.now(), "drain-request", (wake) => {
        this.#wakeDrain = wake;
      });
      if (got === "timer") {
        // Decided by which deadline the timer was for, not by the clock: a timer may fire a
        // millisecond before Date.now() reaches its deadline.
        if (waitEnds !== undefined && wakeAt === waitEnds) {
          return this.#finish([this.#doneEvent()]);
        }
        this.#write([pingEvent(this.#ping())]);
        continue;
      }
      if (got === "drain-request") continue;
      this.#pending = undefined;
      const result = got;
      if (result.done) throw unavailable("the subscription ended; retry");
      const { chunks, ends } = this.#handle(result.value, false);
      if (ends) return this.#finish(chunks);
      this.#write(chunks);
    }
  }

  #awaitDrain(out: SseOutput): Promise<"drained" | "slow" | "closed" | Wake> {
    return new Promise((resolve) => {
      const done = (how: "drained" | "slow" | "closed" | Wake) => {
        clearTimeout(timer);
        out.off("drain", onDrain);
        out.off("close", onClose);
        this.#wakeDrain = undefined;
        resolve(how);
      };
      const onDrain = () => done("drained");
      const onClose = () => done("closed");
      const timer = setTimeout(() => done("slow"), this.#opts.slowConsumerMs);
      out.once("drain", onDrain);
      out.once("close", onClose);
      this.#wakeDrain = done;
    });
  }

  /** When a caught-up `wait` session ends with nothing new; undefined without one. */
  #waitEnds(): number | undefined {
    const { waitMs } = this.#opts;
    return this.#caughtUp && waitMs !== undefined ? this.#idleSince + waitMs : undefined;
  }

  /** The events for one batch, and whether they end the session. */
  #handle(batch: SourceBatch, first: boolean): { chunks: Chunk[]; ends: boolean } {
    if (batch.tail) this.#tail = batch.tail;
    const { records } = batch;
    const head = records[0];
    if (!head) {
      if (!this.#next) this.#next = nextOf(this.#tail);
      if (this.#caughtUp) return { chunks: [], ends: false };
      this.#caughtUp = true;
      this.#idleSince = Date.now();
      return { chunks: [pingEvent(this.#ping())], ends: false };
    }
    if (!this.#next) this.#next = { seq_num: BigInt(head.seq_num), timestamp_ms: "0" };
    const cut = cutBatch(records, contentBytes, this.#opts.bounds, this.#tally);
    const shared = cut.take === records.length ? this.#sharedRest(batch) : undefined;
    if (shared) {
      const last = records[records.length - 1] as Record__Output;
      this.#tally = cut.tally;
      this.#lastId = { seq_num: BigInt(last.seq_num), ...this.#tally };
      this.#next = { seq_num: BigInt(last.seq_num) + 1n, timestamp_ms: last.timestamp_ms };
      this.#idleSince = Date.now();
      // One buffer per event (the head is ASCII): a single piece for the socket to send.
      const head = batchEventHead(this.#lastId);
      const event = Buffer.allocUnsafe(head.length + shared.length);
      event.write(head, 0, "latin1");
      event.set(shared, head.length);
      const chunks: Chunk[] = [{ unpooled: event }];
      return cut.done
        ? { chunks: [...chunks, this.#doneEvent()], ends: true }
        : { chunks, ends: false };
    }
    const { json, written, failure } = this.#toJson(records.slice(0, cut.take));
    // A record that cannot be shown fails the request when nothing is sent yet.
    if (failure && first && written === 0) throw failure;
    const chunks: Chunk[] = [];
    const sent = records.slice(0, written);
    const last = sent[sent.length - 1];
    if (last) {
      this.#tally = failure ? addTally(this.#tally, sent) : cut.tally;
      this.#lastId = { seq_num: BigInt(last.seq_num), ...this.#tally };
      this.#next = { seq_num: BigInt(last.seq_num) + 1n, timestamp_ms: last.timestamp_ms };
      this.#idleSince = Date.now();
      chunks.push(
        batchEventBytes(
          this.#lastId,
          json,
          positionText(this.#tail, this.#opts.int64),
          takeResponseBuffer,
        ),
      );
    }
    if (failure) return { chunks: [...chunks, this.#errorEvent(failure)], ends: true };
    if (cut.done) return { chunks: [...chunks, this.#doneEvent()], ends: true };
    return { chunks, ends: false };
  }

  /** A hub batch's event after its head, made once for every subscriber in this mode. */
  #sharedRest(batch: SourceBatch): Uint8Array | undefined {
    if (!batch.shared || !batch.tail) return undefined;
    return batch.shared.rest(batch.records, batch.tail, this.#opts.format, this.#opts.int64);
  }

  /** The records as JSON, up to the first that cannot be shown in this format. */
  #toJson(records: Record__Output[]): { json: ScratchJson; written: number; failure?: HttpError } {
    const { json, written, failure } = recordsJsonBytes(
      records,
      this.#opts.format,
      this.#opts.int64,
    );
    return failure === undefined
      ? { json, written }
      : { json, written, failure: toHttpError(failure) };
  }

  #slowConsumer(): void {
    this.#opts.onSlowConsumer?.();
    const err = new HttpError(
      503,
      "slow_consumer",
      `the client read nothing for ${this.#opts.slowConsumerMs} ms; resume from last_event_id`,
      { retryable: true },
    );
    this.#finish([this.#errorEvent(err)]);
  }

  #errorEvent(err: unknown): string {
    const http = toHttpError(err, { resource: "stream" });
    const body = errorBody(http, this.#opts.int64);
    if (this.#lastId) body.last_event_id = formatEventId(this.#lastId);
    return errorEvent(body);
  }

  #doneEvent(): string {
    const next = this.#next ?? nextOf(this.#tail);
    return doneEvent(
      positionToJson(
        { seq_num: next.seq_num.toString(), timestamp_ms: next.timestamp_ms },
        this.#opts.int64,
      ),
    );
  }

  #ping() {
    return {
      timestamp_ms: BigInt(Date.now()),
      tail: positionToJson(this.#tail, this.#opts.int64),
    };
  }

  /** Writes events; the ping clock runs from the last byte written, so writing nothing keeps it. */
  #write(chunks: Chunk[]): void {
    if (chunks.length === 0) return;
    const out = this.#out as SseOutput;
    for (const chunk of chunks) {
      if (typeof chunk === "string") out.write(chunk);
      else if ("unpooled" in chunk) out.write(chunk.unpooled);
      else
        out.write(chunk, (err) => {
          if (!err) responseBuffers.give(chunk);
        });
    }
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
    endLingering(out, this.#opts.lingerMs ?? DEFAULT_LINGER_MS);
  }

  /** Stops the source and with it the upstream call. */
  #release(): void {
    if (!this.#stop.signal.aborted) this.#stop.abort(new Error("the SSE session ended"));
    const it = this.#it;
    this.#it = undefined;
    it?.return?.().catch(() => {});
  }
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

function addTally(tally: Tally, records: Record__Output[]): Tally {
  let bytes = tally.bytes;
  for (const r of records) bytes += BigInt(contentBytes(r));
  return { count: tally.count + BigInt(records.length), bytes };
}

function nextOf(tail: Position__Output | null): Next {
  return { seq_num: BigInt(tail?.seq_num ?? "0"), timestamp_ms: tail?.timestamp_ms ?? "0" };
}
