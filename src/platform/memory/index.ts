// Bounded memory: pooled buffers, the idle shelf they share, and the byte-bounded LRU.
export * from "./buffer-pool.ts";
export * from "./byte-lru.ts";
export * from "./garbage-nudge.ts";
export * from "./idle-shelf.ts";
export * from "./memory-parts.ts";
export * from "./owned-bytes.ts";
