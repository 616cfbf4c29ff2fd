// Shared subscriptions: one upstream feed per stream in a hub, read by every subscriber.
export {
  DEFAULT_HUB_LINGER_MS,
  DEFAULT_HUB_RING,
  type HubLease,
  HubRegistry,
} from "./hub-registry.ts";
export type { RingLimits } from "./hub-ring.ts";
export { DEFAULT_READ_GRANT_MS, ReadGrants } from "./read-grants.ts";
export { type HubEvents, sharedSource } from "./shared-source.ts";
export { DEFAULT_FANOUT_SLICE } from "./stream-hub.ts";
