// The frames of a server-streaming gRPC call as an async iterator that reads only on demand:
// the call is resumed while the consumer waits for a frame and paused as soon as one arrives,
// so a consumer that stops pulling (its socket does not drain) stops the call, and HTTP/2 flow
// control stops the star. grpc-js still reads ahead into its readable buffer (16 frames), so a
// stalled consumer holds at most 17 frames here, each a star page (at most 1 MiB of content).
// A non-OK status is thrown as a StarCallError once the frames that came before it are
// consumed; returning early or aborting cancels the call at once.
import type { Readable } from "node:stream";
import { type StatusObject, status } from "@grpc/grpc-js";
import { StarCallError } from "./errors.ts";

/** A grpc-js ClientReadableStream: an object-mode Readable of frames that can be cancelled. */
export type ReadableCall = Readable & { cancel(): void };

export async function* callFrames<T>(
  call: ReadableCall,
  method: string,
  signal: AbortSignal,
): AsyncGenerator<T> {
  const queue: T[] = [];
  let final: StatusObject | undefined;
  let ended = false;
  let wake: (() => void) | undefined;
  const poke = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const onData = (frame: T) => {
    queue.push(frame);
    call.pause();
    poke();
  };
  const onStatus = (s: StatusObject) => {
    final = s;
    poke();
  };
  const onEnd = () => {
    ended = true;
    poke();
  };
  call.on("data", onData);
  call.on("status", onStatus);
  call.on("end", onEnd);
  // The status carries the failure; this keeps the 'error' event (a cancel's too) handled.
  call.on("error", () => {});
  signal.addEventListener("abort", poke);
  try {
    for (;;) {
      signal.throwIfAborted();
      const frame = queue.shift();
      if (frame !== undefined) {
        yield frame;
        continue;
      }
      const failed = final !== undefined && final.code !== status.OK;
      // After a failure 'end' may not come; the frames buffered before it still count.
      if (ended || (failed && call.readableLength === 0)) {
        if (failed && final) throw new StarCallError(final, { method });
        return;
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
        call.resume();
      });
    }
  } finally {
    signal.removeEventListener("abort", poke);
    call.off("data", onData);
    call.off("status", onStatus);
    call.off("end", onEnd);
    if (final === undefined) call.cancel();
  }
}
