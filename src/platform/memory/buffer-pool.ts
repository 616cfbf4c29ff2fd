// Reused memory for large buffers that are written to a socket and then dead: response bodies
// in the gateway, object bodies in the embedded object store. Fresh memory costs a page fault
// per 4 KiB on its first write and, at about 1 MiB per buffer, frequent garbage collections of
// the whole heap; reused memory costs neither. A buffer goes back only once nothing reads it any
// more (for a socket: a write callback without error, or 'finish'); one that is never given back
// is left to the garbage collector. Idle memory is bounded.

import { IdleShelf } from "./idle-shelf.ts";

/** Smallest and largest pooled sizes; outside them a buffer is allocated as usual. */
const MIN_CLASS = 64 * 1024;
const MAX_CLASS = 8 * 1024 * 1024;

export class BufferPool {
  readonly #idle: IdleShelf<ArrayBuffer>;
  /** Pooled memory out on loan: given back at most once. */
  readonly #lent = new WeakSet<ArrayBuffer>();

  constructor(maxIdleBytes: number) {
    this.#idle = new IdleShelf(maxIdleBytes);
  }

  /** Bytes held for reuse. */
  get idleBytes(): number {
    return this.#idle.bytes;
  }

  /** A buffer of exactly `size` bytes, uninitialised; pooled memory when the size is pooled. */
  take(size: number): Buffer {
    if (size < MIN_CLASS || size > MAX_CLASS) return Buffer.allocUnsafe(size);
    const cls = 2 ** Math.ceil(Math.log2(size));
    const memory = this.#idle.take(cls) ?? new ArrayBuffer(cls);
    this.#lent.add(memory);
    return Buffer.from(memory, 0, size);
  }

  /** The memory `buf` keeps alive: the whole pooled buffer it is cut from when lent from here. */
  heldBy(buf: Uint8Array): number {
    return this.#lent.has(buf.buffer as ArrayBuffer) ? buf.buffer.byteLength : buf.byteLength;
  }

  /** `buf`'s memory is no longer read by anyone; anything else is ignored. */
  give(buf: Uint8Array): void {
    const memory = buf.buffer;
    if (!(memory instanceof ArrayBuffer) || !this.#lent.has(memory)) return;
    this.#lent.delete(memory);
    this.#idle.keep(memory.byteLength, memory);
  }
}
