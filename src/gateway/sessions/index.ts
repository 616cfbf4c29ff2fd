// Long-lived reads and writes: SSE subscriptions, long-polls and NDJSON append sessions.

export { DEFAULT_HUB_LINGER_MS, DEFAULT_HUB_RING, type HubRegistry } from "./hubs/hub-registry.ts";
export { DEFAULT_READ_GRANT_MS, ReadGrants } from "./hubs/read-grants.ts";
export { DEFAULT_FANOUT_SLICE } from "./hubs/stream-hub.ts";
export { bodyChunks } from "./ndjson/body-chunks.ts";
export * from "./ndjson/ndjson-http.ts";
export * from "./sources/fleet-source.ts";
export type { BatchSource, Cursor, SourceBatch } from "./sources/source.ts";
export * from "./sse/await-drain.ts";
export * from "./sse/next-batch.ts";
export * from "./sse/sse-session.ts";
export * from "./subscribe-http.ts";
