// One s2s append session: the request body is a stream of AppendInput frames, each appended
// through the unary Append path and answered, in order, by an AppendAck frame.
//
// - One batch is upstream at a time: S2's match_seq_num and fencing_token are per input, and
//   a later batch must not land when an earlier one failed (S2 applies nothing after the
//   failure). The body is read no faster than batches are acked, so HTTP/2 flow control holds
//   the client's next frames; what is held here is one body chunk's frames at most.
// - A frame that is not one (bad_frame) or not an AppendInput (bad_proto) is answered after the
//   inputs before it, as S2 does, with a terminal frame; so is an append's failure. Nothing
//   after the failing input is appended.
// - Draining lets the batch in flight finish, then ends with S2's 503 server_draining: nothing
//   unacked was appended, so the SDK resubmits it on a fresh connection.
import { decompressPayload } from "./compression.ts";
import { type Frame, FrameDecoder, FrameError, type TerminalFrame } from "./frame.ts";
import type { FrameWriter } from "./frame-output.ts";

export interface S2sAppendOptions<Batch, Ack> {
  /** The request body's chunks, pulled one at a time. */
  chunks: AsyncIterator<Uint8Array>;
  writer: FrameWriter;
  /** An AppendInput payload as the batch to append; throws S2's error when it is not one. */
  decodeInput(payload: Uint8Array): Batch;
  encodeAck(ack: Ack): Uint8Array;
  append(batch: Batch, bytes: number): Promise<Ack>;
  /** The terminal frame that tells the client of an error (S2's status and JSON). */
  terminal(err: unknown): Omit<TerminalFrame, "terminal">;
  /** The terminal frame of a session ended by the gateway draining. */
  draining(): Omit<TerminalFrame, "terminal">;
}

export class S2sAppendSession<Batch, Ack> {
  readonly #opts: S2sAppendOptions<Batch, Ack>;
  readonly #decoder = new FrameDecoder();
  #ready: Frame[] = [];
  #draining = false;
  /** Wakes a session waiting for the client's next frame when the gateway drains. */
  #wake: (() => void) | undefined;
  readonly #drained = new Promise<"drained">((resolve) => {
    this.#wake = () => resolve("drained");
  });

  constructor(opts: S2sAppendOptions<Batch, Ack>) {
    this.#opts = opts;
  }

  /** Stops after the batch in flight; the session ends with server_draining. */
  drain(): void {
    this.#draining = true;
    this.#wake?.();
  }

  /** Runs the session to its end; resolves once the response is ended. */
  async run(): Promise<void> {
    const { writer } = this.#opts;
    try {
      for (;;) {
        if (this.#draining) return await writer.terminal(this.#opts.draining());
        const frame = await this.#nextFrame();
        if (frame === "drained") continue;
        if (!frame) return writer.end();
        if (frame.terminal) throw new FrameError("a terminal frame is not an append input");
        const payload = decompressPayload(frame.payload, frame.compression);
        const batch = this.#opts.decodeInput(payload);
        const ack = await this.#opts.append(batch, payload.length);
        if (!(await writer.message(this.#opts.encodeAck(ack)))) return;
      }
    } catch (err) {
      if (!writer.gone) await writer.terminal(this.#opts.terminal(err));
    }
  }

  async #nextFrame(): Promise<Frame | undefined | "drained"> {
    while (this.#ready.length === 0) {
      const next = await Promise.race([this.#opts.chunks.next(), this.#drained]);
      if (next === "drained") return next;
      if (next.done) {
        this.#decoder.end();
        return undefined;
      }
      this.#ready = this.#decoder.push(next.value);
    }
    return this.#ready.shift();
  }
}
