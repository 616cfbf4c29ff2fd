// A response that collects what a session writes, as frames, and can stall like a slow reader.
import { EventEmitter } from "node:events";
import { decompressPayload } from "./compression.ts";
import { type Frame, FrameDecoder } from "./frame.ts";
import type { FrameOutput } from "./frame-output.ts";

export class FakeOutput extends EventEmitter implements FrameOutput {
  readonly #decoder = new FrameDecoder();
  readonly frames: Frame[] = [];
  ended = false;
  destroyed = false;
  /** write() answers false (the socket is full) while set. */
  full = false;

  write(chunk: Uint8Array): boolean {
    this.frames.push(...this.#decoder.push(chunk));
    this.emit("wrote");
    return !this.full;
  }

  end(): void {
    this.ended = true;
    this.emit("close");
  }

  destroy(): void {
    this.destroyed = true;
    this.emit("close");
  }

  /** The message payloads, decompressed, as text. */
  messages(): string[] {
    return this.frames.flatMap((f) =>
      f.terminal ? [] : [new TextDecoder().decode(decompressPayload(f.payload, f.compression))],
    );
  }

  /** The terminal frame's status and JSON, if one was written. */
  terminal(): { status: number; body: unknown } | undefined {
    const last = this.frames.at(-1);
    if (!last?.terminal) return undefined;
    return { status: last.status, body: JSON.parse(new TextDecoder().decode(last.body)) };
  }
}
