// An S2 read session over Server-Sent Events, as S2's SDKs read it: `event: batch` with id
// `<last seq_num>,<records>,<metered bytes>` (this connection's running totals, as S2 counts
// them), `event: ping` with `{timestamp, tail}` on catching up and then while idle (the SDK gives
// up after 25 s without an event), `event: error` with S2's error body, and a bare `data: [DONE]`
// when the session's bounds are met. It reads the same source as nova's SSE sessions (object
// storage catch-up, Subscribe with failover, the stream's hub). While the socket does not drain
// nothing more is pulled; a client stalled past the slow-consumer limit gets an error event.
import type { Position__Output } from "../../gen/nova/v1/Position.ts";
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
  type SseTiming,
} from "../sessions/index.ts";
import { stringifyJsonExact } from "../translate/index.ts";
import { s2Error, toS2Error } from "./errors.ts";
import { positionToS2Json, readBatchToS2Json, type S2Format } from "./json.ts";
import { positionToS2, readBatchToS2 } from "./records.ts";
import { cutToSessionBounds, type S2SessionBounds } from "./session-bounds.ts";

export interface S2SseOptions {
  source: BatchSource;
  cursor: Cursor;
  bounds: S2SessionBounds;
  /** Ends the session (`[DONE]`) once caught up and idle this long; undefined: never. */
  idleEndMs?: number;
  format: S2Format;
  slowConsumerMs: number;
  /** Told when the session ends for a client that read nothing for `slowConsumerMs`. */
  onSlowConsumer?: () => void;
  timing: SseTiming;
  /** Aborts when the client goes away. */
  signal: AbortSignal;
}

const DONE = "data: [DONE]\n\n";

export class S2SseSession {
  readonly #opts: S2SseOptions;
  readonly #read: SourceRead;
  #count = 0n;
  #bytes = 0n;
  #tail: Position__Output | null = null;
  #idleSince: number | undefined;
  #draining = false;
  readonly #reader = new ReadLoop();

  constructor(opts: S2SseOptions) {
    this.#opts = opts;
    this.#read = new SourceRead(opts.source, opts.cursor, opts.signal, "the S2 read session ended");
  }

  /** Opens the source and reads its first batch: a failure here is the request's HTTP error. */
  start(): Promise<void> {
    return this.#read.open(() =>
      s2Error("unavailable", "the read session ended before it started"),
    );
  }

  /** Stops the source: the session ended, or its response could not start. Idempotent. */
  release(): void {
    this.#read.release();
  }

  /** Ends the session soon with S2's server_draining error, which S2's SDKs retry. */
  drain(): void {
    this.#draining = true;
    this.#reader.wake();
  }

  /** Writes events until the session ends; resolves once the response is finished or gone. */
  async run(out: SseOutput): Promise<void> {
    const closed = onClosed(out, () => this.#read.release());
    try {
      await this.#loop(out);
    } catch (err) {
      if (!this.#read.stopped) this.#end(out, errorEvent(err));
    } finally {
      this.#read.release();
    }
    if (!out.writableFinished && !out.destroyed) await closed;
  }

  async #loop(out: SseOutput): Promise<void> {
    let lastWrite = Date.now();
    let pingDelay = this.#opts.timing.pingMs();
    let idleEnd: number | undefined;
    const write = (text: string) => {
      out.write(text);
      lastWrite = Date.now();
      pingDelay = this.#opts.timing.pingMs();
    };
    const { bounds } = this.#opts;
    // Resumed with its bounds already met (S2 resumes with what was delivered taken off them).
    if (bounds.count === 0n || bounds.bytes === 0n) return this.#end(out, DONE);
    if (this.#handle(this.#read.first(), write)) return this.#end(out, DONE);
    await this.#reader.run<IteratorResult<SourceBatch>>({
      ready: async () => {
        for (;;) {
          if (this.#draining) {
            this.#end(
              out,
              errorEvent(s2Error("server_draining", "the gateway is shutting down; resume")),
            );
            return false;
          }
          if (!out.writableNeedDrain) return true;
          if (!(await this.#drained(out))) return false;
        }
      },
      reads: () => this.#read.next(),
      wakeAt: () => {
        idleEnd =
          this.#opts.idleEndMs !== undefined && this.#idleSince !== undefined
            ? this.#idleSince + this.#opts.idleEndMs
            : undefined;
        const pingAt = lastWrite + pingDelay;
        return idleEnd === undefined ? pingAt : Math.min(pingAt, idleEnd);
      },
      timer: () => {
        if (idleEnd !== undefined && idleEnd <= lastWrite + pingDelay) {
          this.#end(out, DONE);
          return false;
        }
        write(this.#ping());
        return true;
      },
      read: (got) => {
        this.#read.taken();
        if (got.done) throw s2Error("unavailable", "the read session's subscription ended; resume");
        if (!this.#handle(got.value, write)) return true;
        this.#end(out, DONE);
        return false;
      },
    });
  }

  /** Writes one batch's events; true when the session's bounds are met. */
  #handle(batch: SourceBatch, write: (text: string) => void): boolean {
    if (batch.tail) this.#tail = batch.tail;
    const { bounds } = this.#opts;
    if (batch.records.length === 0) {
      // Caught up: S2 sends a heartbeat, and a bounded session without `wait` ends here.
      if (this.#idleSince !== undefined) return false;
      this.#idleSince = Date.now();
      if (this.#opts.idleEndMs === 0) return true;
      write(this.#ping());
      return false;
    }
    this.#idleSince = undefined;
    const cut = cutToSessionBounds(batch.records, bounds, {
      count: this.#count,
      bytes: this.#bytes,
    });
    const take = batch.records.slice(0, cut.take);
    this.#count = cut.tally.count;
    this.#bytes = cut.tally.bytes;
    const met = cut.done;
    const last = take.at(-1);
    if (last) {
      const data = stringifyJsonExact(
        readBatchToS2Json(readBatchToS2(take, this.#tail), this.#opts.format),
      );
      write(`event: batch\nid: ${last.seq_num},${this.#count},${this.#bytes}\ndata: ${data}\n\n`);
    }
    return met;
  }

  #ping(): string {
    const data = {
      timestamp: BigInt(Date.now()),
      tail: positionToS2Json(positionToS2(this.#tail)),
    };
    return `event: ping\ndata: ${stringifyJsonExact(data)}\n\n`;
  }

  /** Waits for the socket to drain; false when the session ended instead (gone or too slow). */
  async #drained(out: SseOutput): Promise<boolean> {
    const { slowConsumerMs } = this.#opts;
    // A drain request while blocked: the session ends at the next turn of the loop.
    const how = await awaitDrain(out, slowConsumerMs, this.#reader);
    if (how === "slow") {
      this.#opts.onSlowConsumer?.();
      this.#end(
        out,
        errorEvent(
          s2Error("unavailable", `the client read nothing for ${slowConsumerMs} ms; resume`),
        ),
      );
    }
    return how === "drained" || how === "wake";
  }

  #end(out: SseOutput, last: string): void {
    this.#read.release();
    if (out.destroyed || out.writableFinished) return;
    out.write(last);
    endLingering(out, this.#opts.timing.endLingerMs);
  }
}

function errorEvent(err: unknown): string {
  return `event: error\ndata: ${stringifyJsonExact(toS2Error(err, { resource: "stream" }).body)}\n\n`;
}
