// Adapts an async function to a grpc-js unary handler: results and thrown errors (as typed
// gRPC statuses) go back on the call.
import type { ServerUnaryCall, sendUnaryData } from "@grpc/grpc-js";
import { toServiceError } from "../errors.ts";

export function unary<Req, Res>(
  fn: (req: Req) => Promise<Res>,
): (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>) => void {
  return (call, callback) => {
    fn(call.request).then(
      (res) => callback(null, res),
      (err: unknown) => callback(toServiceError(err)),
    );
  };
}
