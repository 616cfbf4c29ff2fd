// Ordering async work: one turn at a time per key; races that leave nothing behind.
export * from "./key-turns.ts";
export * from "./watched.ts";
