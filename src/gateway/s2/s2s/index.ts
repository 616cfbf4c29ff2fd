// S2's s2s transport: the session framing, and append and read sessions over it.
export * from "./compression.ts";
export * from "./frame.ts";
