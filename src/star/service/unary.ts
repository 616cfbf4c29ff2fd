// Adapts an async function to a grpc-js unary handler: results and thrown errors (as typed
// gRPC statuses) go back on the call. The function runs as the call's Caller, so work passed on
// to another star carries its credentials and deadline, and is cancelled with the call.
import type { ServerUnaryCall, sendUnaryData } from "@grpc/grpc-js";
import type { Logger } from "pino";
import { toServiceError } from "../errors.ts";
import { withCaller } from "../fleet/caller.ts";

export function unary<Req, Res>(
  log: Logger,
  fn: (req: Req) => Promise<Res>,
): (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>) => void {
  return (call, callback) => {
    const cancelled = new AbortController();
    const cancel = () => cancelled.abort();
    call.once("cancelled", cancel);
    const caller = {
      metadata: call.metadata,
      deadline: call.getDeadline(),
      signal: cancelled.signal,
    };
    // grpc-js also reports "cancelled" when a finished call's stream closes; aborting then
    // would only build an unused AbortError, with its stack, for every call.
    const settled = () => call.off("cancelled", cancel);
    withCaller(caller, async () => fn(call.request)).then(
      (res) => {
        settled();
        callback(null, res);
      },
      (err: unknown) => {
        settled();
        callback(toServiceError(err, log));
      },
    );
  };
}
