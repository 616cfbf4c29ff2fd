// What the HTTP layer needs from the star fleet: typed unary calls addressed to a stream (so
// the fleet can route to its leader), Subscribe calls and AppendSessions on the right star, with
// the caller's credentials, cancellation and deadline.

import type { RequestOf, ResponseOf, UnaryMethod } from "../../contract/proto/index.ts";
import type { AppendSessionOpen } from "../../gen/nova/v1/AppendSessionOpen.ts";
import type { SubscribeRequest } from "../../gen/nova/v1/SubscribeRequest.ts";
import type { AppendSession, FleetCallOptions, SubscribeCall } from "./fleet-client.ts";

export type CallOptions = FleetCallOptions;
export type { AppendSession, SubscribeCall };

export interface Upstream {
  unary<M extends UnaryMethod>(
    method: M,
    request: RequestOf<M>,
    opts: CallOptions,
  ): Promise<ResponseOf<M>>;
  /**
   * Starts a Subscribe; the caller reads the call and cancels it when done. It ends with the
   * star's status (UNAVAILABLE at a star's shutdown: subscribe again from the cursor).
   */
  subscribe(request: SubscribeRequest, opts: CallOptions): Promise<SubscribeCall>;
  /** Opens an AppendSession on the stream's leader: the handshake is done when it resolves. */
  openAppendSession(open: AppendSessionOpen, opts: CallOptions): Promise<AppendSession>;
  /** Whether some star answers its health check. */
  ready(): Promise<boolean>;
  close(): void;
}
