// The star fleet as the rest of the gateway sees it: the Upstream port, the fleet client that
// implements it, the failures its calls end with, and a server stream's frames as an iterator.
export {
  connectionBroken,
  FleetError,
  type FleetErrorCode,
  isServiceError,
  notOwnerLeader,
  StarCallError,
  statusName,
} from "./errors.ts";
export { FleetClient, type FleetObserver } from "./fleet-client.ts";
export { fleetUpstream } from "./fleet-upstream.ts";
export { callFrames } from "./grpc-frames.ts";
export type { AppendSession, CallOptions, SubscribeCall, Upstream } from "./upstream.ts";
