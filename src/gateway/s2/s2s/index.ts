// S2's s2s transport: the session framing, and append and read sessions over it.
export * from "./compression.ts";
export * from "./frame.ts";
export { DEFAULT_HEARTBEAT_MS } from "./read-session.ts";
export * from "./s2s-http.ts";
