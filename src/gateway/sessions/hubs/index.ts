// Shared subscriptions: one upstream feed per stream in a hub, read by every subscriber.
export { type HubLease, HubRegistry } from "./hub-registry.ts";
export type { RingLimits } from "./hub-ring.ts";
export { ReadGrants } from "./read-grants.ts";
export {
  type HubEvents,
  type SharedSourceDeps,
  type SharedStream,
  sharedSource,
} from "./shared-source.ts";
