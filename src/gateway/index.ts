// The gateway as a library: what its composition root (src/main.ts) puts together.
export * from "./app.ts";
export * from "./cluster/index.ts";
export { createReadService } from "./history/index.ts";
export {
  createMetrics,
  Drain,
  isLoopbackName,
  metricsObserver,
  trustedProxies,
} from "./http/index.ts";
export * from "./settings.ts";
export { FleetClient, fleetUpstream } from "./upstream/index.ts";
