// Ordering async work: one turn at a time per key; races that leave nothing behind; many far
// deadlines on one timer.
export * from "./key-turns.ts";
export * from "./timer-wheel.ts";
export * from "./unless-running.ts";
export * from "./watched.ts";
