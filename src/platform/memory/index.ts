// Bounded memory: pooled buffers, the idle shelf they share, the byte-bounded LRU, and the
// garbage nudge with what it watches.
export * from "./buffer-pool.ts";
export * from "./byte-lru.ts";
export * from "./full-collections.ts";
export * from "./garbage-nudge.ts";
export * from "./idle-shelf.ts";
export * from "./memory-parts.ts";
export * from "./owned-bytes.ts";
