// What the HTTP layer needs from the star fleet: typed unary calls addressed to a stream (so
// the fleet can route to its leader), Subscribe calls and AppendSessions on the right star, with
// the caller's credentials, cancellation and deadline.

import type { ClientDuplexStream, ClientReadableStream } from "@grpc/grpc-js";
import type { RequestOf, ResponseOf, UnaryMethod } from "../../contract/proto/index.ts";
import type { AppendSessionOpen } from "../../gen/nova/v1/AppendSessionOpen.ts";
import type { AppendSessionOpened__Output } from "../../gen/nova/v1/AppendSessionOpened.ts";
import type { AppendSessionRequest } from "../../gen/nova/v1/AppendSessionRequest.ts";
import type { AppendSessionResponse__Output } from "../../gen/nova/v1/AppendSessionResponse.ts";
import type { SubscribeRequest } from "../../gen/nova/v1/SubscribeRequest.ts";
import type { SubscribeResponse__Output } from "../../gen/nova/v1/SubscribeResponse.ts";

export interface CallOptions {
  /** The stream addressed, for routing to its leader; defaults to the request's bucket and key. */
  bucket?: string;
  key?: string;
  /** Forwarded to the star as the `authorization` metadata. */
  authorization?: string;
  /** Aborting cancels the upstream call at once. */
  signal?: AbortSignal;
  /** Overrides the verb's deadline. */
  deadlineMs?: number;
}

// The streaming calls are grpc-js's own, unwrapped: a session's backpressure pauses the call
// itself (callFrames), and the call ends with the star's status.
export type SubscribeCall = ClientReadableStream<SubscribeResponse__Output>;
export type AppendSessionCall = ClientDuplexStream<
  AppendSessionRequest,
  AppendSessionResponse__Output
>;

export interface AppendSession {
  call: AppendSessionCall;
  opened: AppendSessionOpened__Output;
  /** The star holding the session. */
  address: string;
}

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
