// What the HTTP layer needs from the star fleet: typed unary calls addressed to a stream (so
// the fleet can route to its leader), with the caller's credentials, cancellation and deadline.
import type { FleetCallOptions } from "../fleet/fleet-client.ts";
import type { RequestOf, ResponseOf, UnaryMethod } from "../proto/dataplane-methods.ts";

export type CallOptions = FleetCallOptions;

export interface Upstream {
  unary<M extends UnaryMethod>(
    method: M,
    request: RequestOf<M>,
    opts: CallOptions,
  ): Promise<ResponseOf<M>>;
  /** Whether some star answers its health check. */
  ready(): Promise<boolean>;
  close(): void;
}
