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
import type { Position__Output } from "../../../gen/nova/v1/Position.ts";
import type { Record__Output } from "../../../gen/nova/v1/Record.ts";
import { ReadLoop, type SourceBatch, type SourceRead } from "../../sessions/index.ts";
import { meteredBytes, S2_MAX_BATCH_METERED_BYTES, S2_MAX_BATCH_RECORDS } from "../metering.ts";
import { cutToSessionBounds, type S2SessionBounds, type S2Tally } from "../session-bounds.ts";
import type { TerminalFrame } from "./frame.ts";
import type { FrameWriter } from "./frame-output.ts";

/** S2 heartbeats a following session at a random gap of 5 to 15 s, under the SDK's 20 s. */
export const DEFAULT_HEARTBEAT_MS = { min: 5_000, max: 15_000 };

export interface S2sReadOptions {
  /** Batches from the session's start, not yet opened; an empty one means caught up. */
  read: SourceRead;
  bounds: S2SessionBounds;
  /** Caught up, the session ends after this long without a record; undefined: never. */
  idleEndMs: number | undefined;
  heartbeatMs?: { min: number; max: number };
  encodeBatch(records: Record__Output[], tail: Position__Output | null): Uint8Array;
  terminal(err: unknown): Omit<TerminalFrame, "terminal">;
  draining(): Omit<TerminalFrame, "terminal">;
}

export class S2sReadSession {
  readonly #opts: S2sReadOptions;
  #tally: S2Tally = { count: 0n, bytes: 0n };
  #tail: Position__Output | null = null;
  #draining = false;
  readonly #reader = new ReadLoop();

  constructor(opts: S2sReadOptions) {
    this.#opts = opts;
  }

  /** Reads the first batch; throws (as the request's HTTP error) when the read cannot start. */
  start(): Promise<void> {
    return this.#opts.read.open(() => new Error("the read ended before it started"));
  }

  /** Stops the source: the session ended, or its response could not start. Idempotent. */
  release(): void {
    this.#opts.read.release();
  }

  /** Ends the session with server_draining at the next frame boundary. */
  drain(): void {
    this.#draining = true;
    this.#reader.wake();
  }

  /** Streams frames until the session ends; resolves once the response is ended or gone. */
  async run(writer: FrameWriter): Promise<void> {
    // The client gone wakes the session at once, not at its next heartbeat.
    void writer.closed.then(() => this.#reader.wake());
    try {
      let idleSince = Date.now();
      let beatAt = Date.now() + this.#beat();
      let following = false;
      let idleEnd: number | undefined;
      /** A batch delivered; false when the session ended with it. */
      const take = async (batch: SourceBatch): Promise<boolean> => {
        const caughtUp = batch.records.length === 0;
        // A batch while following only moves the tail; S2 heartbeats on the switch to it.
        if (caughtUp && following) {
          this.#tail = batch.tail ?? this.#tail;
          return true;
        }
        if (await this.#deliver(batch, writer)) {
          writer.end();
          return false;
        }
        following = caughtUp;
        idleSince = Date.now();
        beatAt = Date.now() + this.#beat();
        return true;
      };
      if (!(await take(this.#opts.read.first()))) return;
      await this.#reader.run<IteratorResult<SourceBatch>>({
        ready: async () => {
          if (writer.gone) return false;
          if (this.#draining) {
            await writer.terminal(this.#opts.draining());
            return false;
          }
          if (following && this.#opts.idleEndMs === 0) {
            writer.end();
            return false;
          }
          return true;
        },
        reads: () => this.#opts.read.next(),
        wakeAt: () => {
          const { idleEndMs } = this.#opts;
          idleEnd = following && idleEndMs !== undefined ? idleSince + idleEndMs : undefined;
          return idleEnd === undefined ? beatAt : Math.min(beatAt, idleEnd);
        },
        timer: async () => {
          if (idleEnd !== undefined && idleEnd <= beatAt) {
            writer.end();
            return false;
          }
          if (!(await writer.message(this.#opts.encodeBatch([], this.#tail)))) return false;
          beatAt = Date.now() + this.#beat();
          return true;
        },
        read: (got) => {
          this.#opts.read.taken();
          if (got.done) throw new Error("the subscription ended");
          return take(got.value);
        },
      });
    } catch (err) {
      if (!writer.gone) await writer.terminal(this.#opts.terminal(err));
    } finally {
      this.#opts.read.release();
    }
  }

  /** Writes a batch as frames within the bounds; true when the bounds are met. */
  async #deliver(batch: SourceBatch, writer: FrameWriter): Promise<boolean> {
    this.#tail = batch.tail ?? this.#tail;
    if (batch.records.length === 0) {
      await writer.message(this.#opts.encodeBatch([], this.#tail));
      return false;
    }
    const cut = cutToSessionBounds(batch.records, this.#opts.bounds, this.#tally);
    this.#tally = cut.tally;
    let from = 0;
    while (from < cut.take) {
      let to = from;
      let size = 0;
      while (to < cut.take && to - from < S2_MAX_BATCH_RECORDS) {
        const next = meteredBytes(batch.records[to] as Record__Output);
        if (to > from && size + next > S2_MAX_BATCH_METERED_BYTES) break;
        size += next;
        to++;
      }
      const frame = this.#opts.encodeBatch(batch.records.slice(from, to), this.#tail);
      if (!(await writer.message(frame))) return false;
      from = to;
    }
    return cut.done;
  }

  #beat(): number {
    const { min, max } = this.#opts.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
    return min + Math.random() * (max - min);
  }
}
