// Memory for cached chunks, used again once the cache lets a chunk go. A chunk lives in the
// cache for hundreds of chunks' time, so fresh memory for each one grows V8's external memory
// by about 1 MiB a chunk until a mark-compact collection frees the old ones, the largest cost
// left in a catch-up (docs/catchup.md). Reused memory does not grow.
//
// Reuse is safe by generation, not by counting readers: giving memory back bumps its
// generation, and a chunk reads its bytes only after checking, synchronously, that the
// generation is still the one it was filled under (VerifiedChunk.copyRecords). What a reader
// serves is copied out of the chunk first, so no record ever views pooled memory.

import { IdleShelf } from "../../platform/memory/index.ts";

/** Larger chunks get fresh memory, left to the garbage collector. */
const MAX_POOLED = 16 * 1024 * 1024;

/**
 * The size of memory lent for `size` bytes: rounded up to a sixteenth of its power of two (at
 * least 1 KiB), so chunks of nearby sizes share memory and at most 1/16 of it goes unused.
 */
export function memoryClass(size: number): number {
  const step = Math.max(1024, 2 ** (Math.floor(Math.log2(size)) - 4));
  return Math.ceil(size / step) * step;
}

/** A piece of pooled memory; `generation` moves on each time it is given back. */
export class ChunkMemory {
  generation = 0;
  readonly memory: ArrayBuffer;

  constructor(memory: ArrayBuffer) {
    this.memory = memory;
  }
}

/** Memory lent for one chunk: its bytes, valid while `slot.generation === generation`. */
export interface Lent {
  bytes: Buffer;
  slot: ChunkMemory | undefined;
  generation: number;
}

/** Memory from no pool: valid for as long as anyone holds it. */
export function freshMemory(bytes: Buffer): Lent {
  return { bytes, slot: undefined, generation: 0 };
}

export class ChunkMemoryPool {
  readonly #idle: IdleShelf<ChunkMemory>;

  constructor(maxIdleBytes: number) {
    this.#idle = new IdleShelf(maxIdleBytes);
  }

  /** Bytes held for reuse. */
  get idleBytes(): number {
    return this.#idle.bytes;
  }

  /** Memory of exactly `size` bytes for one chunk, contents undefined. */
  take(size: number): Lent {
    if (size === 0 || size > MAX_POOLED) {
      return freshMemory(Buffer.allocUnsafe(size));
    }
    const cls = memoryClass(size);
    const slot = this.#idle.take(cls) ?? new ChunkMemory(new ArrayBuffer(cls));
    return { bytes: Buffer.from(slot.memory, 0, size), slot, generation: slot.generation };
  }

  /**
   * The chunk filled under `lent` is gone: its memory may be lent again. A second give of the
   * same loan, and memory not from a pool, are ignored.
   */
  give(lent: Lent): void {
    const { slot } = lent;
    if (!slot || slot.generation !== lent.generation) return;
    slot.generation++;
    this.#idle.keep(slot.memory.byteLength, slot);
  }

  /** The bytes of memory `lent` holds on to (a pooled class is larger than the chunk). */
  static bytesHeld(lent: Lent): number {
    return lent.slot ? lent.slot.memory.byteLength : lent.bytes.length;
  }

  /** Whether `lent`'s memory still holds what was written under it. */
  static holds(lent: Lent): boolean {
    return lent.slot === undefined || lent.slot.generation === lent.generation;
  }
}
