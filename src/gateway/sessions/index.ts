// Long-lived reads and writes: SSE subscriptions, long-polls and NDJSON append sessions.
export {
  DEFAULT_FANOUT_SLICE,
  DEFAULT_HUB_LINGER_MS,
  DEFAULT_HUB_RING,
  DEFAULT_READ_GRANT_MS,
  type HubRegistry,
  ReadGrants,
} from "./hubs/index.ts";
export * from "./ndjson/index.ts";
export * from "./sources/index.ts";
export * from "./sse/index.ts";
export * from "./subscribe-http.ts";
