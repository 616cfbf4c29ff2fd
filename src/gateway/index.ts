// The gateway as a library: what its composition root (src/main.ts) puts together.
export * from "./app.ts";
export { createReadService, DEFAULT_READPLAN_SETTINGS } from "./history/index.ts";
export { createMetrics, metricsObserver } from "./http/index.ts";
export { FleetClient, fleetUpstream } from "./upstream/index.ts";
