// Writing frames to a session's response with backpressure: a write the socket does not take at
// once is waited on ('drain'), so a reader that does not read holds nothing but one frame here;
// one that stays stalled past the slow-consumer limit loses its response.

import { awaitDrain } from "../../sessions/index.ts";
import { compressPayload } from "./compression.ts";
import { type Compression, encodeFrame, type TerminalFrame } from "./frame.ts";

/** The response as a session uses it (an http or http2 ServerResponse in the gateway). */
export interface FrameOutput {
  write(chunk: Uint8Array): boolean;
  end(): void;
  once(event: "drain" | "close", listener: () => void): unknown;
  off(event: "drain" | "close", listener: () => void): unknown;
  destroy(): void;
}

export class FrameWriter {
  readonly #out: FrameOutput;
  readonly #compression: Compression;
  readonly #stallMs: number;
  readonly #onStall: () => void;
  /** Settles when the response closes, finished or not. */
  readonly closed: Promise<void>;
  // Told by 'close': an HTTP/2 response has no `destroyed` of its own.
  #gone = false;

  /** A write the socket has not taken after `stallMs` destroys the response (told `onStall`). */
  constructor(
    out: FrameOutput,
    compression: Compression,
    stallMs: number,
    onStall: () => void = () => {},
  ) {
    this.#out = out;
    this.#compression = compression;
    this.#stallMs = stallMs;
    this.#onStall = onStall;
    this.closed = new Promise((resolve) =>
      out.once("close", () => {
        this.#gone = true;
        resolve();
      }),
    );
  }

  get gone(): boolean {
    return this.#gone;
  }

  /** Frames a protobuf payload; resolves once the socket took it, false when the client is gone. */
  message(payload: Uint8Array): Promise<boolean> {
    const packed = compressPayload(payload, this.#compression);
    return this.#write(encodeFrame({ terminal: false, reconnectAdvised: false, ...packed }));
  }

  /** Ends the response with a terminal frame. */
  async terminal(frame: Omit<TerminalFrame, "terminal">): Promise<void> {
    await this.#write(encodeFrame({ terminal: true, ...frame }));
    this.end();
  }

  end(): void {
    if (!this.#gone) this.#out.end();
  }

  async #write(bytes: Uint8Array): Promise<boolean> {
    const out = this.#out;
    if (this.#gone) return false;
    if (out.write(bytes)) return true;
    if ((await awaitDrain(out, this.#stallMs)) !== "slow") return !this.#gone;
    this.#onStall();
    out.destroy();
    return false;
  }
}
