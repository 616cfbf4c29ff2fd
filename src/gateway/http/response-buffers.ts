// The gateway's pool for large response bodies (catch-up pages and SSE batch events, about
// 1 MiB each): copying into reused memory is far cheaper than into fresh memory, and that copy
// was a large part of a paged catch-up's CPU (docs/catchup.md, "Cache, prefetch and memory").
import { BufferPool } from "../../platform/memory/index.ts";

/** Idle response memory kept for reuse, bytes. */
export const RESPONSE_BUFFERS_IDLE_BYTES = 32 * 1024 * 1024;
export const responseBuffers = new BufferPool(RESPONSE_BUFFERS_IDLE_BYTES);

/** A buffer for a response body from the gateway's pool. */
export const takeResponseBuffer = (size: number): Buffer => responseBuffers.take(size);

/** A body taken from the pool that will not be sent after all (a 304): its memory goes back. */
export const giveResponseBuffer = (body: Buffer): void => responseBuffers.give(body);
