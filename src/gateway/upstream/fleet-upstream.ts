// The star fleet as the HTTP layer's Upstream, and the fleet's observer feeding /metrics.

import type { GatewayMetrics } from "../http/metrics.ts";
import type { FleetClient, FleetObserver } from "./fleet-client.ts";
import type { Upstream } from "./upstream.ts";

export function fleetUpstream(fleet: FleetClient): Upstream {
  return {
    unary: (method, request, opts) => fleet.unary(method, request, opts),
    subscribe: (request, opts) => fleet.subscribe(request, opts),
    openAppendSession: (open, opts) => fleet.openAppendSession(open, opts),
    ready: async () => (await fleet.health()).ready,
    close: () => fleet.close(),
  };
}

export function metricsObserver(metrics: GatewayMetrics): FleetObserver {
  return {
    onCall: (method, code) => metrics.upstreamCalls.inc({ verb: method, code }),
    onRedirect: (method) => metrics.redirects.inc({ verb: method }),
  };
}
