// Adapts an async function to a grpc-js unary handler: results and thrown errors (as typed
// gRPC statuses) go back on the call. The function runs as the call's Caller, so work passed on
// to another star carries its credentials and deadline, and is cancelled with the call. Each
// call is tracked in `calls` while it runs, so a shutdown can answer it.
import type { ServerUnaryCall, sendUnaryData } from "@grpc/grpc-js";
import type { Logger } from "pino";
import { toServiceError } from "../errors.ts";
import { withCaller } from "../fleet/caller.ts";
import type { RunningCalls } from "./running-calls.ts";

export function unary<Req, Res>(
  serving: { log: Logger; calls: RunningCalls },
  fn: (req: Req) => Promise<Res>,
): (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>) => void {
  const { log, calls } = serving;
  return (call, callback) => {
    const cancelled = new AbortController();
    const cancel = () => cancelled.abort();
    call.once("cancelled", cancel);
    const caller = {
      metadata: call.metadata,
      deadline: call.getDeadline(),
      signal: cancelled.signal,
    };
    let answered = false;
    // grpc-js also reports "cancelled" when a finished call's stream closes; aborting then
    // would only build an unused AbortError, with its stack, for every call.
    const answer = (err: unknown, res?: Res) => {
      if (answered) return;
      answered = true;
      call.off("cancelled", cancel);
      untrack();
      if (err === null) callback(null, res);
      else callback(toServiceError(err, log));
    };
    const untrack = calls.track((err) => {
      answer(err);
      cancelled.abort();
    });
    withCaller(caller, async () => fn(call.request)).then(
      (res) => answer(null, res),
      (err: unknown) => answer(err),
    );
  };
}
