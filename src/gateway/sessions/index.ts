// Long-lived reads and writes: SSE subscriptions, long-polls and NDJSON append sessions.
export * from "./await-drain.ts";
export { bodyChunks } from "./body-chunks.ts";
export * from "./fleet-source.ts";
export { DEFAULT_HUB_LINGER_MS, DEFAULT_HUB_RING, type HubRegistry } from "./hub-registry.ts";
export * from "./ndjson-http.ts";
export * from "./next-batch.ts";
export { DEFAULT_READ_GRANT_MS, ReadGrants } from "./read-grants.ts";
export type { BatchSource, Cursor, SourceBatch } from "./source.ts";
export * from "./sse-session.ts";
export { DEFAULT_FANOUT_SLICE } from "./stream-hub.ts";
export * from "./subscribe-http.ts";
