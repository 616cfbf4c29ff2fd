// Ordering async work: one turn at a time per key.
export * from "./key-turns.ts";
