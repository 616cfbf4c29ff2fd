// SSE sessions, nova's one-stream and multiplexed forms, and what S2's sessions share with them:
// bounds, the wait for a socket to drain, the race of a source's next batch with timers.
export * from "./await-drain.ts";
export * from "./bounds.ts";
export * from "./read-loop.ts";
export * from "./source-read.ts";
export { multiplexed } from "./sse-forms.ts";
export * from "./sse-session.ts";
