// The gateway as a library: what its composition root (src/main.ts) puts together.
export * from "./app.ts";
export * from "./cluster/index.ts";
export { createReadService, DEFAULT_READPLAN_SETTINGS } from "./history/index.ts";
export {
  createMetrics,
  DEFAULT_BODY_TIMEOUTS,
  DEFAULT_CACHE_MAX_AGE_S,
  DEFAULT_COMPRESS_MIN_BYTES,
  DEFAULT_DRAIN_DELAY_MS,
  DEFAULT_H2_MAX_STREAMS,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_MAX_SESSIONS_PER_CLIENT,
  Drain,
  FORWARDED_HEADERS,
  metricsObserver,
  trustedProxies,
} from "./http/index.ts";
export {
  DEFAULT_FANOUT_SLICE,
  DEFAULT_HUB_LINGER_MS,
  DEFAULT_HUB_RING,
  DEFAULT_READ_GRANT_MS,
  DEFAULT_SSE_PING_MS,
} from "./sessions/index.ts";
export { FleetClient, fleetUpstream } from "./upstream/index.ts";
