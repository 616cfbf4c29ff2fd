// One s2s read session: batches from the same source an SSE session reads (history catch-up,
// then the stream's hub or the fleet's Subscribe), cut to the session's bounds and to S2's
// batch limit (1000 records, 1 MiB metered), each a ReadBatch frame; while following,
// heartbeats (ReadBatch with only the tail) so the SDK, which gives up after 20 s without a
// frame, knows the session is alive.
//
// - The first batch is read before any byte is written: a failure there (404, 416) is the
//   request's HTTP error; later ones end the session with a terminal frame.
// - Bounds met, or caught up with `wait` over, end the response cleanly (no terminal frame):
//   the SDK reads that as the session's end. The SDK resumes any other end by itself, with
//   seq_num after its last record and what is left of count and bytes.
// - Draining ends with S2's 503 server_draining, which the SDK retries on a fresh connection.
// - The source is pulled only once the previous frame was taken by the socket.
import { type Bounds, cutBatch, type Tally, ZERO_TALLY } from "../../sessions/index.ts";
import { S2_MAX_BATCH_METERED_BYTES, S2_MAX_BATCH_RECORDS } from "../metering.ts";
import type { TerminalFrame } from "./frame.ts";
import type { FrameWriter } from "./frame-output.ts";

/** S2 heartbeats a following session at a random gap of 5 to 15 s, under the SDK's 20 s. */
export const DEFAULT_HEARTBEAT_MS = { min: 5_000, max: 15_000 };

/**
 * How long a caught-up session waits for a record before it ends: S2's `wait` as asked;
 * unasked, 0 when count, bytes or until bound the read (it ends once caught up), else it
 * follows without end (undefined).
 */
export function sessionWaitMs(waitS: number | undefined, bounds: Bounds): number | undefined {
  if (waitS !== undefined) return waitS * 1000;
  const bounded =
    bounds.count !== undefined || bounds.bytes !== undefined || bounds.untilMs !== undefined;
  return bounded ? 0 : undefined;
}

export interface ReadSourceBatch<R, T> {
  records: R[];
  tail: T | null;
}

export interface S2sReadOptions<R extends { timestamp_ms: string }, T> {
  /** Batches from the session's start; an empty one means caught up. */
  batches: AsyncIterator<ReadSourceBatch<R, T>>;
  bounds: Bounds;
  /** S2's metered size of a record, which the `bytes` bound and the batch limit count. */
  meteredBytes(record: R): number;
  /** Caught up, the session ends after this long without a record; undefined: never. */
  waitMs: number | undefined;
  heartbeatMs?: { min: number; max: number };
  encodeBatch(records: R[], tail: T | null): Uint8Array;
  terminal(err: unknown): Omit<TerminalFrame, "terminal">;
  draining(): Omit<TerminalFrame, "terminal">;
  /** Stops the source, however the session ends. */
  stop(): void;
}

/** A timer, or a reason to look again at the session's state (a drain, the client gone). */
type Wake = "timer" | "drain";

export class S2sReadSession<R extends { timestamp_ms: string }, T> {
  readonly #opts: S2sReadOptions<R, T>;
  #first: ReadSourceBatch<R, T> | undefined;
  #pending: Promise<IteratorResult<ReadSourceBatch<R, T>>> | undefined;
  #tally: Tally = ZERO_TALLY;
  #tail: T | null = null;
  #draining = false;
  #wake: ((w: Wake) => void) | undefined;

  constructor(opts: S2sReadOptions<R, T>) {
    this.#opts = opts;
  }

  /** Reads the first batch; throws (as the request's HTTP error) when the read cannot start. */
  async start(): Promise<void> {
    try {
      const first = await this.#opts.batches.next();
      if (first.done) throw new Error("the read ended before it started");
      this.#first = first.value;
    } catch (err) {
      this.#opts.stop();
      throw err;
    }
  }

  /** Ends the session with server_draining at the next frame boundary. */
  drain(): void {
    this.#draining = true;
    this.#wake?.("drain");
  }

  /** Streams frames until the session ends; resolves once the response is ended or gone. */
  async run(writer: FrameWriter): Promise<void> {
    try {
      const first = this.#first;
      this.#first = undefined;
      let idleSince = Date.now();
      let beatAt = Date.now() + this.#beat();
      let following = false;
      if (first && (await this.#deliver(first, writer))) return writer.end();
      if (first?.records.length === 0) following = true;
      while (!writer.gone) {
        if (this.#draining) return await writer.terminal(this.#opts.draining());
        if (following && this.#opts.waitMs === 0) return writer.end();
        const waitEnds =
          following && this.#opts.waitMs !== undefined ? idleSince + this.#opts.waitMs : undefined;
        const wakeAt = waitEnds === undefined ? beatAt : Math.min(beatAt, waitEnds);
        this.#pending ??= this.#pull();
        const got = await this.#race(this.#pending, wakeAt - Date.now(), writer.closed);
        if (got === "drain") continue;
        if (got === "timer") {
          if (waitEnds !== undefined && wakeAt === waitEnds) return writer.end();
          if (!(await writer.message(this.#opts.encodeBatch([], this.#tail)))) return;
          beatAt = Date.now() + this.#beat();
          continue;
        }
        this.#pending = undefined;
        if (got.done) throw new Error("the subscription ended");
        const batch = got.value;
        const caughtUp = batch.records.length === 0;
        if (caughtUp && following) {
          this.#tail = batch.tail ?? this.#tail;
          continue;
        }
        // S2 heartbeats when the session switches to following.
        if (await this.#deliver(batch, writer)) return writer.end();
        if (writer.gone) return;
        following = caughtUp;
        idleSince = Date.now();
        beatAt = Date.now() + this.#beat();
      }
    } catch (err) {
      if (!writer.gone) await writer.terminal(this.#opts.terminal(err));
    } finally {
      this.#opts.stop();
    }
  }

  /** Writes a batch as frames within the bounds; true when the bounds are met. */
  async #deliver(batch: ReadSourceBatch<R, T>, writer: FrameWriter): Promise<boolean> {
    this.#tail = batch.tail ?? this.#tail;
    if (batch.records.length === 0) {
      await writer.message(this.#opts.encodeBatch([], this.#tail));
      return false;
    }
    const cut = cutBatch(batch.records, this.#opts.meteredBytes, this.#opts.bounds, this.#tally);
    this.#tally = cut.tally;
    const { take, done } = cut;
    let from = 0;
    while (from < take) {
      let to = from;
      let size = 0;
      while (to < take && to - from < S2_MAX_BATCH_RECORDS) {
        const next = this.#opts.meteredBytes(batch.records[to] as R);
        if (to > from && size + next > S2_MAX_BATCH_METERED_BYTES) break;
        size += next;
        to++;
      }
      const frame = this.#opts.encodeBatch(batch.records.slice(from, to), this.#tail);
      if (!(await writer.message(frame))) return false;
      from = to;
    }
    return done;
  }

  #beat(): number {
    const { min, max } = this.#opts.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
    return min + Math.random() * (max - min);
  }

  #pull(): Promise<IteratorResult<ReadSourceBatch<R, T>>> {
    const next = this.#opts.batches.next();
    // Raced, and awaited when it wins; a rejection after the session ended is nobody's.
    next.catch(() => {});
    return next;
  }

  #race(
    pending: Promise<IteratorResult<ReadSourceBatch<R, T>>>,
    delayMs: number,
    closed: Promise<void>,
  ): Promise<IteratorResult<ReadSourceBatch<R, T>> | Wake> {
    let timer: NodeJS.Timeout | undefined;
    return Promise.race([
      pending,
      closed.then(() => "drain" as const),
      new Promise<Wake>((resolve) => {
        timer = setTimeout(() => resolve("timer"), Math.max(0, delayMs));
        this.#wake = resolve;
      }),
    ]).finally(() => {
      clearTimeout(timer);
      this.#wake = undefined;
    });
  }
}
