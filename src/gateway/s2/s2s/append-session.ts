// One s2s append session: the request body is a stream of AppendInput frames, each submitted in
// order and answered, in order, by an AppendAck frame.
//
// - Inputs are pipelined, as S2 serves them: up to MAX_UNANSWERED are submitted and not yet
//   answered at once (what may go upstream together, and what may not, is the submitter's:
//   append-pipeline.ts). The body is read no faster than that, so HTTP/2 flow control holds the
//   client's next frames.
// - After a failed input nothing more is submitted, and its terminal frame follows the acks of
//   the inputs before it (the submitter guarantees that nothing after it lands).
// - A frame that is not one (bad_frame) or not an AppendInput (bad_proto) is answered after the
//   inputs before it, as S2 does, with a terminal frame; so is an append's failure. Nothing
//   after the failing input is appended.
// - Draining lets the batch in flight finish, then ends with S2's 503 server_draining: nothing
//   unacked was appended, so the SDK resubmits it on a fresh connection.
import { raceWatched, Watched } from "../../../platform/concurrency/index.ts";
import { decompressPayload } from "./compression.ts";
import { type Frame, FrameDecoder, FrameError, type TerminalFrame } from "./frame.ts";
import type { FrameWriter } from "./frame-output.ts";

export interface S2sAppendOptions<Batch, Ack> {
  /** The request body's chunks, pulled one at a time. */
  chunks: AsyncIterator<Uint8Array>;
  /**
   * The append budget the session's client draws on: what the decoder holds of a frame still
   * arriving is taken from it (an input, once submitted, is the submitter's to take).
   */
  admission: { take(bytes: number): void; give(bytes: number): void };
  /** An AppendInput payload as the batch to append; throws S2's error when it is not one. */
  decodeInput(payload: Uint8Array): Batch;
  encodeAck(ack: Ack): Uint8Array;
  /**
   * Hands a batch on in order; resolves when the next one may be submitted, with its ack. A
   * rejected ack fails the session; nothing submitted after it may land.
   */
  submit(batch: Batch, bytes: number): Promise<{ ack: Promise<Ack> }>;
  /** The terminal frame that tells the client of an error (S2's status and JSON). */
  terminal(err: unknown): Omit<TerminalFrame, "terminal">;
  /** The terminal frame of a session ended by the gateway draining. */
  draining(): Omit<TerminalFrame, "terminal">;
}

/** Inputs submitted and not yet answered to the client, at most (a bound on acks held here). */
export const MAX_UNANSWERED = 64;

export class S2sAppendSession<Batch, Ack> {
  readonly #opts: S2sAppendOptions<Batch, Ack>;
  readonly #decoder = new FrameDecoder();
  #ready: Frame[] = [];
  /** Inputs submitted and not yet answered: the oldest is the next to give budget back. */
  #unanswered: Promise<void>[] = [];
  /** Bytes of the frame still arriving taken from admission. */
  #partialHeld = 0;
  #draining = false;
  /** Wakes a session waiting for the client's next frame when the gateway drains. */
  #wake: (() => void) | undefined;
  /** Raced once per chunk for the session's life: watched, so that no race leaves a reaction. */
  readonly #drained = new Watched(
    new Promise<"drained">((resolve) => {
      this.#wake = () => resolve("drained");
    }),
  );

  constructor(opts: S2sAppendOptions<Batch, Ack>) {
    this.#opts = opts;
  }

  /** Stops after the batch in flight; the session ends with server_draining. */
  drain(): void {
    this.#draining = true;
    this.#wake?.();
  }

  /**
   * Runs the session to its end, answering on `writer`; resolves once the response is ended.
   * The writer comes last, once the session is admitted: taking it sends the response's head.
   */
  async run(writer: FrameWriter): Promise<void> {
    const unanswered = this.#unanswered;
    let failure: { err: unknown } | undefined;
    let gone = false;
    let stop: () => void = () => {};
    const stopped = new Watched(
      new Promise<"stopped">((resolve) => {
        stop = () => resolve("stopped");
      }),
    );
    // Acks are written in submission order: each waits for the one before it.
    let answered: Promise<void> = Promise.resolve();
    let ended: { err: unknown } | "draining" | undefined;
    try {
      for (;;) {
        if (failure || gone) break;
        if (this.#draining) {
          ended = "draining";
          break;
        }
        if (unanswered.length >= MAX_UNANSWERED) {
          await raceWatched<unknown>([
            new Watched<unknown>(unanswered[0] as Promise<void>),
            stopped,
          ]);
          continue;
        }
        const frame = await raceWatched<Frame | undefined | "drained" | "stopped">([
          new Watched(this.#nextFrame()),
          stopped,
        ]);
        if (frame === "drained" || frame === "stopped") continue;
        if (!frame) break;
        if (frame.terminal) throw new FrameError("a terminal frame is not an append input");
        const payload = decompressPayload(frame.payload, frame.compression);
        const { ack } = await this.#opts.submit(this.#opts.decodeInput(payload), payload.length);
        // Handled here at once: it may fail before the acks before it are written.
        ack.catch(() => {});
        const written = answered.then(async () => {
          if (failure || gone) return;
          try {
            const value = await ack;
            if (!(await writer.message(this.#opts.encodeAck(value)))) gone = true;
          } catch (err) {
            failure = { err };
          }
          if (failure || gone) stop();
        });
        answered = written;
        unanswered.push(written);
        // Written in order: the oldest unanswered is always the one done.
        written.then(() => unanswered.shift());
      }
    } catch (err) {
      ended = { err };
    }
    await answered;
    if (gone || writer.gone) return;
    if (failure) return await writer.terminal(this.#opts.terminal(failure.err));
    if (ended === "draining") return await writer.terminal(this.#opts.draining());
    if (ended) return await writer.terminal(this.#opts.terminal(ended.err));
    writer.end();
  }

  async #nextFrame(): Promise<Frame | undefined | "drained"> {
    while (this.#ready.length === 0) {
      // Bad bytes after the frames taken end the session now, not once the client sends more.
      this.#decoder.check();
      if ((await this.#admitPartial()) === "drained") return "drained";
      const next = await raceWatched<IteratorResult<Uint8Array> | "drained">([
        new Watched(this.#opts.chunks.next()),
        this.#drained,
      ]);
      if (next === "drained") return next;
      if (next.done) {
        this.#decoder.end();
        return undefined;
      }
      this.#ready = this.#decoder.push(next.value);
      const held = this.#decoder.buffered;
      if (held < this.#partialHeld) {
        this.#opts.admission.give(this.#partialHeld - held);
        this.#partialHeld = held;
      }
    }
    return this.#ready.shift();
  }

  /**
   * Takes what the decoder holds of a frame still arriving (up to 2 MiB) before more of it is
   * read, as a unary body's bytes are taken as they arrive. Past a bound it waits for the
   * oldest input to be answered; with none in flight the budget's 429 ends the session.
   */
  async #admitPartial(): Promise<"drained" | undefined> {
    for (;;) {
      const more = this.#decoder.buffered - this.#partialHeld;
      if (more <= 0) return undefined;
      try {
        this.#opts.admission.take(more);
        this.#partialHeld += more;
        return undefined;
      } catch (err) {
        const oldest = this.#unanswered[0];
        if (!oldest) throw err;
        const woke = await raceWatched<unknown>([new Watched<unknown>(oldest), this.#drained]);
        if (woke === "drained") return "drained";
      }
    }
  }
}
