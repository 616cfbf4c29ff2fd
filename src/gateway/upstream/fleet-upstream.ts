// The star fleet as the HTTP layer's Upstream.
import type { FleetClient } from "./fleet-client.ts";
import type { Upstream } from "./upstream.ts";

export function fleetUpstream(fleet: FleetClient): Upstream {
  return {
    unary: (method, request, opts) => fleet.unary(method, request, opts),
    subscribe: (request, opts) => fleet.subscribe(request, opts),
    openAppendSession: (open, opts) => fleet.openAppendSession(open, opts),
    ready: () => fleet.ready(),
    close: () => fleet.close(),
  };
}
