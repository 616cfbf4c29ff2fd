// A long-lived HTTP/1.1 response (SSE) written to its socket once its head is out: each event is
// one chunk of the chunked encoding, framed here from its pieces (the reader's own head and the
// bytes every reader shares). A small event is copied with its framing into one buffer and
// written at once: one write call, where four writes to a corked socket and its writev cost a
// fan-out more than the copy (docs/subscriptions.md). The copy goes into one scratch buffer that
// every small write reuses while the socket takes its writes whole at once, as a fan-out's
// sockets do: a buffer per event turned a fan-out's writes into tens of MiB of dead Buffers
// between collections. A socket that keeps a write to send later keeps that scratch buffer, and
// the next write gets a new one. A large one is framed around its pieces
// without copying them, on a socket corked until the next tick as ServerResponse keeps it.
// Responses it cannot write this way (HTTP/2, no chunked encoding) keep ServerResponse's writes.
import type { ServerResponse } from "node:http";
import type { Socket } from "node:net";

/** A response as a long-lived session writes it. */
export interface StreamOutput {
  /** `done` runs once the socket has taken the chunk (with an error when it could not). */
  write(chunk: string | Uint8Array, done?: (err?: Error | null) => void): boolean;
  /** Writes the pieces as one chunk, when the output can do that without copying them. */
  writeParts?(parts: readonly (string | Uint8Array)[]): boolean;
  end(): void;
  destroy(): void;
  once(event: "drain" | "close", listener: () => void): unknown;
  /** "close" comes once: `on` spares the once-wrapper a listener kept for life would hold. */
  on(event: "close", listener: () => void): unknown;
  off(event: "drain" | "close", listener: () => void): unknown;
  readonly writableNeedDrain: boolean;
  readonly writableFinished: boolean;
  readonly destroyed: boolean;
}

const CRLF = "\r\n";
/** Events up to this size are copied into one buffer; larger ones are written in pieces. */
const COPY_MAX_BYTES = 16 * 1024;

/**
 * Calls `release` when `out` closes, and resolves after it: one listener for both, as a
 * subscriber holds it for its whole life.
 */
export function onClosed(out: StreamOutput, release: () => void): Promise<void> {
  return new Promise((resolve) => {
    out.once("close", () => {
      release();
      resolve();
    });
  });
}

/** `res` as a StreamOutput that writes events straight to its socket when it can. */
export function chunkWriter(res: ServerResponse): StreamOutput {
  const socket = res.socket;
  // `chunkedEncoding` is set by writeHead for an HTTP/1.1 response without a length.
  if (!socket || !(res as ServerResponse & { chunkedEncoding?: boolean }).chunkedEncoding) {
    return res;
  }
  return new ChunkWriter(res, socket);
}

class ChunkWriter implements StreamOutput {
  readonly #res: ServerResponse;
  readonly #socket: Socket;
  /**
   * Writes go through the response until one of them has reached the socket and none is left
   * in it: the head and whatever the response holds (a response queued behind a pipelined one)
   * are then on the socket before any chunk written here.
   */
  #direct = false;
  #inResponse = 0;
  #corked = false;
  /** Made by the first large event: most subscribers never write one. */
  #uncork: (() => void) | undefined;

  constructor(res: ServerResponse, socket: Socket) {
    this.#res = res;
    this.#socket = socket;
  }

  write(chunk: string | Uint8Array, done?: (err?: Error | null) => void): boolean {
    if (!this.#direct) return this.#viaResponse(chunk, done);
    return this.#frame([chunk], done);
  }

  writeParts(parts: readonly (string | Uint8Array)[]): boolean {
    if (!this.#direct) {
      let ok = true;
      for (const part of parts) ok = this.#viaResponse(part);
      return ok;
    }
    return this.#frame(parts);
  }

  #viaResponse(chunk: string | Uint8Array, done?: (err?: Error | null) => void): boolean {
    this.#inResponse++;
    return this.#res.write(chunk, (err) => {
      if (--this.#inResponse === 0 && !err) {
        this.#direct = true;
        forgetSentHead(this.#res);
      }
      done?.(err);
    });
  }

  #frame(parts: readonly (string | Uint8Array)[], done?: (err?: Error | null) => void): boolean {
    const socket = this.#socket;
    let size = 0;
    for (const part of parts)
      size += typeof part === "string" ? Buffer.byteLength(part) : part.length;
    if (size === 0) {
      done?.();
      return !socket.writableNeedDrain;
    }
    if (size <= COPY_MAX_BYTES) {
      // Bytes already waiting in the socket stay there with this write: it gets its own buffer.
      if (socket.writableLength > 0) return socket.write(framed(parts, size), done);
      const ok = socket.write(frameInto(scratch, parts, size), done);
      if (socket.writableLength > 0) scratch = Buffer.allocUnsafeSlow(SCRATCH_BYTES);
      return ok;
    }
    if (!this.#corked) {
      this.#corked = true;
      socket.cork();
      this.#uncork ??= () => {
        this.#corked = false;
        this.#socket.uncork();
      };
      process.nextTick(this.#uncork);
    }
    socket.write(size.toString(16) + CRLF);
    for (const part of parts) socket.write(part);
    return socket.write(CRLF, done);
  }

  end(): void {
    this.#res.end();
  }

  destroy(): void {
    this.#res.destroy();
  }

  once(event: "drain" | "close", listener: () => void): unknown {
    // The socket drains what this writes; the response closes with its socket.
    return event === "drain" ? this.#socket.once(event, listener) : this.#res.once(event, listener);
  }

  on(event: "close", listener: () => void): unknown {
    return this.#res.on(event, listener);
  }

  off(event: "drain" | "close", listener: () => void): unknown {
    return event === "drain" ? this.#socket.off(event, listener) : this.#res.off(event, listener);
  }

  get writableNeedDrain(): boolean {
    return this.#socket.writableNeedDrain || this.#res.writableNeedDrain;
  }

  get writableFinished(): boolean {
    return this.#res.writableFinished;
  }

  get destroyed(): boolean {
    return this.#res.destroyed;
  }
}

/**
 * Node keeps a response's head, as the string it wrote, for the response's life: about 200 bytes
 * for every subscriber. Once the head is on the socket Node reads that string only as a flag (it
 * was sent: `headersSent`, `end()`), so it is swapped for one string every response shares.
 * This reaches into Node's `_header` (chunk-writer.test.ts checks it on the Node we pin).
 */
function forgetSentHead(res: ServerResponse): void {
  const out = res as ServerResponse & { _header?: string | null; _headerSent?: boolean };
  if (out._headerSent === true && typeof out._header === "string") out._header = SENT_HEAD;
}

const SENT_HEAD = "HTTP/1.1 (head sent)\r\n\r\n";

/** A small chunk with its framing: the size line (at most 4 hex digits here) and two CRLFs. */
const SCRATCH_BYTES = COPY_MAX_BYTES + 8;
/** Where small writes are framed while sockets take them at once; replaced once one is kept. */
let scratch = Buffer.allocUnsafeSlow(SCRATCH_BYTES);

/** One chunk of the chunked encoding in a buffer of its own. */
function framed(parts: readonly (string | Uint8Array)[], size: number): Buffer {
  return frameInto(Buffer.allocUnsafe(size.toString(16).length + size + 4), parts, size);
}

/** One chunk of the chunked encoding (the size line, the pieces, the CRLF) at the start of `buf`. */
function frameInto(buf: Buffer, parts: readonly (string | Uint8Array)[], size: number): Buffer {
  const line = size.toString(16) + CRLF;
  let at = buf.write(line, 0, "latin1");
  for (const part of parts) {
    if (typeof part === "string") at += buf.write(part, at, "utf8");
    else {
      buf.set(part, at);
      at += part.length;
    }
  }
  at += buf.write(CRLF, at, "latin1");
  return buf.subarray(0, at);
}
