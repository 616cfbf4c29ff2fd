// Reused memory for large response bodies (catch-up pages and SSE batch events, about 1 MiB
// each). Fresh memory costs a page fault per 4 KiB on its first write: on this machine copying
// 1 MiB into a fresh buffer ran at 1-4 GB/s and into a reused one at 37 GB/s, and the response
// copy was a quarter of the gateway's CPU on a paged catch-up. A buffer goes back to the pool
// only once the socket has taken its bytes (a write callback without error, or 'finish'); one
// that is never given back is left to the garbage collector. Idle memory is bounded.

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

  /** `buf`'s memory is no longer read by anyone; anything else is ignored. */
  give(buf: Uint8Array): void {
    const memory = buf.buffer;
    if (!(memory instanceof ArrayBuffer) || !this.#lent.has(memory)) return;
    this.#lent.delete(memory);
    this.#idle.keep(memory.byteLength, memory);
  }
}

/** The gateway's pool for response bodies: 32 MiB idle at most. */
export const responseBuffers = new BufferPool(32 * 1024 * 1024);

/** A buffer for a response body from the gateway's pool. */
export const takeResponseBuffer = (size: number): Buffer => responseBuffers.take(size);
