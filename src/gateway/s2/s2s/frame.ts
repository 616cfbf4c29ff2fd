// S2's s2s session framing: a 3-byte big-endian length (of the flag byte and the body), a flag
// byte [T CC A RRRR] (terminal, compression none/zstd/gzip, reconnect advised, reserved), then
// the body: a protobuf message, or for a terminal frame a 2-byte status and a JSON error.
// Pure: bytes in, bytes out; the decoder holds at most one frame.

/** S2's limit on a frame's length field (flag byte and body), smaller than 24 bits allow. */
export const MAX_FRAME_BYTES = 2 * 1024 * 1024;
/** The most a body (or a decompressed payload) may be: the frame less its flag byte. */
export const MAX_FRAME_PAYLOAD_BYTES = MAX_FRAME_BYTES - 1;

const LENGTH_BYTES = 3;
const STATUS_BYTES = 2;
const TERMINAL = 0x80;
const COMPRESSION_MASK = 0x60;
const COMPRESSION_SHIFT = 5;
const RECONNECT_ADVISED = 0x10;

export type Compression = "none" | "zstd" | "gzip";
const COMPRESSIONS: readonly (Compression | undefined)[] = ["none", "zstd", "gzip", undefined];

/** A protobuf message, compressed as its flag says. */
export interface MessageFrame {
  terminal: false;
  compression: Compression;
  reconnectAdvised: boolean;
  payload: Uint8Array;
}

/** The last frame of a session: an HTTP status and its JSON error body. */
export interface TerminalFrame {
  terminal: true;
  status: number;
  body: Uint8Array;
}

export type Frame = MessageFrame | TerminalFrame;

/** Bytes that are not a valid frame; the session ends with S2's `bad_frame`. */
export class FrameError extends Error {
  override readonly name = "FrameError";
}

export function encodeFrame(frame: Frame): Uint8Array {
  const bodyLength = frame.terminal ? STATUS_BYTES + frame.body.length : frame.payload.length;
  const length = 1 + bodyLength;
  if (length > MAX_FRAME_BYTES) {
    throw new FrameError(`frame of ${length} bytes exceeds the ${MAX_FRAME_BYTES}-byte limit`);
  }
  const out = new Uint8Array(LENGTH_BYTES + length);
  out[0] = length >>> 16;
  out[1] = (length >>> 8) & 0xff;
  out[2] = length & 0xff;
  if (frame.terminal) {
    if (!Number.isInteger(frame.status) || frame.status < 0 || frame.status > 0xffff) {
      throw new FrameError(`status ${frame.status} does not fit 2 bytes`);
    }
    out[3] = TERMINAL;
    out[4] = frame.status >>> 8;
    out[5] = frame.status & 0xff;
    out.set(frame.body, 6);
  } else {
    const bits = COMPRESSIONS.indexOf(frame.compression) << COMPRESSION_SHIFT;
    out[3] = bits | (frame.reconnectAdvised ? RECONNECT_ADVISED : 0);
    out.set(frame.payload, 4);
  }
  return out;
}

/**
 * Splits a byte stream into frames, whatever the chunk boundaries. It buffers one frame at most
 * (MAX_FRAME_BYTES and its length prefix): a length past the limit fails before its body comes.
 */
export class FrameDecoder {
  #chunks: Uint8Array[] = [];
  #buffered = 0;
  #failed: FrameError | undefined;

  /** Bytes held that do not yet make a frame. */
  get buffered(): number {
    return this.#buffered;
  }

  /**
   * The frames `chunk` completes. Bytes that cannot be a frame throw FrameError, but only once
   * the frames before them were returned: then the error is held for the next push() or end().
   */
  push(chunk: Uint8Array): Frame[] {
    if (this.#failed) throw this.#failed;
    if (chunk.length > 0) {
      this.#chunks.push(chunk);
      this.#buffered += chunk.length;
    }
    const frames: Frame[] = [];
    try {
      for (;;) {
        const frame = this.#next();
        if (!frame) return frames;
        frames.push(frame);
      }
    } catch (err) {
      this.#failed = err as FrameError;
      this.#chunks = [];
      this.#buffered = 0;
      if (frames.length === 0) throw err;
      return frames;
    }
  }

  /** Throws the error held since the last push, if any: nothing more can come from the stream. */
  check(): void {
    if (this.#failed) throw this.#failed;
  }

  /** The byte stream ended: throws a held error, or FrameError when it ended inside a frame. */
  end(): void {
    if (this.#failed) throw this.#failed;
    if (this.#buffered > 0) throw new FrameError("the stream ended inside a frame");
  }

  #next(): Frame | undefined {
    if (this.#buffered < LENGTH_BYTES) return undefined;
    const head = this.#peek(LENGTH_BYTES);
    const length = ((head[0] as number) << 16) | ((head[1] as number) << 8) | (head[2] as number);
    if (length > MAX_FRAME_BYTES) {
      throw new FrameError(`frame of ${length} bytes exceeds the ${MAX_FRAME_BYTES}-byte limit`);
    }
    if (length === 0) throw new FrameError("frame without its flag byte");
    if (this.#buffered < LENGTH_BYTES + length) return undefined;
    const bytes = this.#take(LENGTH_BYTES + length);
    return parseFrame(bytes[LENGTH_BYTES] as number, bytes.subarray(LENGTH_BYTES + 1));
  }

  /** The first `n` buffered bytes (n <= buffered), joined only when they span chunks. */
  #peek(n: number): Uint8Array {
    const first = this.#chunks[0] as Uint8Array;
    if (first.length >= n) return first.subarray(0, n);
    this.#chunks = [concat(this.#chunks, this.#buffered)];
    return (this.#chunks[0] as Uint8Array).subarray(0, n);
  }

  #take(n: number): Uint8Array {
    const joined = this.#peek(n);
    const first = this.#chunks[0] as Uint8Array;
    if (first.length === n) this.#chunks.shift();
    else this.#chunks[0] = first.subarray(n);
    this.#buffered -= n;
    return joined;
  }
}

function parseFrame(flag: number, body: Uint8Array): Frame {
  if (flag & TERMINAL) {
    if (body.length < STATUS_BYTES) throw new FrameError("terminal frame without its status");
    return {
      terminal: true,
      status: ((body[0] as number) << 8) | (body[1] as number),
      body: body.subarray(STATUS_BYTES),
    };
  }
  const compression = COMPRESSIONS[(flag & COMPRESSION_MASK) >> COMPRESSION_SHIFT];
  if (!compression) throw new FrameError("unknown compression in the flag byte");
  return {
    terminal: false,
    compression,
    reconnectAdvised: (flag & RECONNECT_ADVISED) !== 0,
    payload: body,
  };
}

function concat(chunks: Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
