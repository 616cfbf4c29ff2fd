// Long-lived reads and writes: SSE subscriptions, long-polls and NDJSON append sessions.
export { type HubRegistry, ReadGrants } from "./hubs/index.ts";
export { WaitPassed } from "./long-poll.ts";
export * from "./ndjson/index.ts";
export * from "./sources/index.ts";
export * from "./sse/index.ts";
export * from "./subscribe-http.ts";
export { trackSession } from "./tracked-session.ts";
export { wantsEventStream } from "./wants-event-stream.ts";
