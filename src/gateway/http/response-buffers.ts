// The gateway's pool for large response bodies (catch-up pages and SSE batch events, about
// 1 MiB each): copying into reused memory is far cheaper than into fresh memory, and that copy
// was a large part of a paged catch-up's CPU (docs/catchup.md, "Cache, prefetch and memory").
import { BufferPool } from "../../platform/memory/index.ts";

/** 32 MiB idle at most. */
export const responseBuffers = new BufferPool(32 * 1024 * 1024);

/** A buffer for a response body from the gateway's pool. */
export const takeResponseBuffer = (size: number): Buffer => responseBuffers.take(size);
