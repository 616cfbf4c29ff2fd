// A Durable Streams read in SSE mode: `event: data` with each batch's messages (a JSON array in
// JSON mode, the text for text/* streams, else base64), then `event: control` with
// streamNextOffset, streamCursor, upToDate and, at the end of a closed stream, streamClosed,
// after which the response ends. The response also ends after --ds-sse-close-s, so that a CDN can
// collapse the clients that reconnect, and when the gateway drains. It reads the same source as
// nova's SSE sessions (object storage catch-up, Subscribe with failover, the stream's hub);
// while the socket does not drain nothing more is pulled.

import { unavailable } from "../errors/index.ts";
import { onClosed } from "../http/index.ts";
import {
  awaitDrain,
  type BatchSource,
  type Cursor,
  endLingering,
  ReadLoop,
  type SourceBatch,
  SourceRead,
  type SseOutput,
} from "../sessions/index.ts";
import { nextCursor } from "./cursor.ts";
import { checkRetained } from "./errors.ts";
import { offsetOf } from "./offsets.ts";
import { type Rendering, renderSse, sseEvent } from "./render.ts";

export interface DsSseOptions {
  source: BatchSource;
  cursor: Cursor;
  /** Where the first control event points when the first batch has no records. */
  from: bigint;
  rendering: Rendering;
  /** The `cursor` the client echoed. */
  echoed: string | undefined;
  /** The response ends after this long; the client resumes from the last control event. */
  closeAfterMs: number;
  slowConsumerMs: number;
  /** How long a finished response its client is not reading keeps its socket (SseTiming). */
  endLingerMs: number;
  /** Told when the session ends for a client that read nothing for `slowConsumerMs`. */
  onSlowConsumer?: () => void;
  /** Aborts when the client goes away. */
  signal: AbortSignal;
}

export class DsSseSession {
  readonly #opts: DsSseOptions;
  readonly #read: SourceRead;
  readonly #reader = new ReadLoop();
  #next: bigint;
  #cursor: string | undefined;
  #draining = false;

  constructor(opts: DsSseOptions) {
    this.#opts = opts;
    this.#read = new SourceRead(opts.source, opts.cursor, opts.signal, "the SSE read ended");
    this.#next = opts.from;
  }

  /**
   * Opens the source and reads its first batch: a failure here is the request's HTTP error, and
   * so is a first record past a concrete offset, or none with the tail past it (a trim took
   * what was there), as a page read answers.
   */
  start(): Promise<void> {
    const { cursor, from } = this.#opts;
    return this.#read.open(
      () => unavailable("the read ended before it started; retry"),
      (first) => {
        if (cursor.clamp) return;
        const seq = first.records[0]?.seq_num ?? first.tail?.seq_num;
        if (seq !== undefined) checkRetained(from, BigInt(seq));
      },
    );
  }

  /** Stops the source: the session ended, or its response could not start. Idempotent. */
  release(): void {
    this.#read.release();
  }

  /** Ends the response soon; the client resumes from its last control event elsewhere. */
  drain(): void {
    this.#draining = true;
    this.#reader.wake();
  }

  async run(out: SseOutput): Promise<void> {
    const closed = onClosed(out, () => this.#read.release());
    try {
      await this.#loop(out);
    } catch (err) {
      // The client went away (its abort ends the reads): nothing to report.
      if (!this.#read.stopped) throw err;
    } finally {
      this.#read.release();
      this.#end(out);
    }
    if (!out.writableFinished && !out.destroyed) await closed;
  }

  async #loop(out: SseOutput): Promise<void> {
    const endAt = Date.now() + this.#opts.closeAfterMs;
    if (this.#handle(this.#read.first(), out, true)) return;
    await this.#reader.run<IteratorResult<SourceBatch>>({
      ready: async () => {
        while (!this.#draining) {
          if (!out.writableNeedDrain) return true;
          const how = await awaitDrain(out, this.#opts.slowConsumerMs, this.#reader);
          if (how === "slow") this.#opts.onSlowConsumer?.();
          if (how !== "drained" && how !== "wake") return false;
        }
        return false;
      },
      reads: () => this.#read.next(),
      wakeAt: () => endAt,
      timer: () => false,
      read: (got) => {
        this.#read.taken();
        if (got.done) return false;
        return !this.#handle(got.value, out, false);
      },
    });
  }

  /** Writes one batch's events; true when the stream is closed and this was its end. */
  #handle(batch: SourceBatch, out: SseOutput, first: boolean): boolean {
    const tail = BigInt(batch.tail?.seq_num ?? 0);
    const last = batch.records.at(-1);
    if (last) this.#next = BigInt(last.seq_num) + 1n;
    else if (this.#next < tail && first) this.#next = tail;
    // A heartbeat without news says nothing: only the first one, and each batch, get a control.
    if (!last && !first && !batch.closed) return false;
    const closed = batch.closed === true;
    let text = "";
    if (last) text += renderSse(batch.records, this.#opts.rendering);
    // From the cursor the client echoed, as each response to it is: jittered at most once
    // over, never from this session's own last one (which would run further ahead each event
    // and give each client a URL of its own); never going back within the session.
    const cursor = nextCursor(Date.now(), this.#opts.echoed);
    if (this.#cursor === undefined || BigInt(cursor) > BigInt(this.#cursor)) this.#cursor = cursor;
    const control = {
      streamNextOffset: offsetOf(this.#next),
      ...(closed ? { streamClosed: true, upToDate: true } : { streamCursor: this.#cursor }),
      ...(!closed && this.#next >= tail ? { upToDate: true } : {}),
    };
    text += sseEvent("control", JSON.stringify(control));
    out.write(text);
    return closed;
  }

  #end(out: SseOutput): void {
    if (out.destroyed || out.writableFinished) return;
    endLingering(out, this.#opts.endLingerMs);
  }
}
