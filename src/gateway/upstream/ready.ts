// Waits for a channel to be connected before a call starts on it. grpc-js does not tell a
// caller whether a failed call's request ever left the process; a call that never got a
// connected channel certainly did not, so it can go to another star even when replaying it
// would not be safe (an Append). Once started, a failed call's outcome is unknown.
import { type ChannelInterface, connectivityState } from "@grpc/grpc-js";

export type Readiness =
  | "ready"
  /** The connection attempt failed, or the channel is in backoff after one, or closed. */
  | "unreachable"
  | "deadline"
  | "aborted";

/** Resolves once the channel is READY or cannot be soon; connects an idle channel. */
export function awaitReady(
  channel: ChannelInterface,
  deadline: number,
  signal?: AbortSignal,
): Promise<Readiness> {
  return new Promise((resolve) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (readiness: Readiness) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      resolve(readiness);
    };
    const onAbort = () => finish("aborted");
    const check = () => {
      if (settled) return;
      const state = channel.getConnectivityState(true);
      if (state === connectivityState.READY) return finish("ready");
      if (state === connectivityState.TRANSIENT_FAILURE || state === connectivityState.SHUTDOWN) {
        return finish("unreachable");
      }
      // No deadline on the watch: grpc-js keeps its timer referenced until it fires; the
      // watcher goes away at the next state change, which IDLE and CONNECTING always reach.
      channel.watchConnectivityState(state, Infinity, check);
    };
    if (signal?.aborted) return finish("aborted");
    signal?.addEventListener("abort", onAbort, { once: true });
    if (Number.isFinite(deadline)) {
      timer = setTimeout(() => finish("deadline"), Math.max(0, deadline - Date.now()));
    }
    check();
  });
}
