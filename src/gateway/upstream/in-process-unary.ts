// A unary call on the star in this process (an embedded star): the same request and answer
// bytes as over gRPC, handed across without a connection.
import * as grpc from "@grpc/grpc-js";
import type { MethodDefinition } from "@grpc/proto-loader";
import type { InProcessStar } from "../../contract/proto/index.ts";
import { encodeRequest, type UnaryCall, type UnaryEnd } from "./h2-unary.ts";

export function startInProcess<Req, Res>(
  star: InProcessStar,
  def: MethodDefinition<Req, unknown, unknown, Res>,
  request: Req,
  metadata: grpc.Metadata,
  deadline: number,
  done: (end: UnaryEnd<Res>) => void,
): UnaryCall {
  const message = encodeRequest(def, request, done);
  if (message === undefined) return { cancel() {} };
  return star.unary(def.path, message, metadata, deadline, (end) => {
    const status = { code: end.code, details: end.details, metadata: end.metadata };
    if (end.code !== grpc.status.OK) return done({ status, sent: end.sent });
    const internal = (details: string) =>
      done({
        status: { code: grpc.status.INTERNAL, details, metadata: new grpc.Metadata() },
        sent: true,
      });
    if (end.response === undefined) return internal("the star answered OK without a message");
    let response: Res;
    try {
      response = def.responseDeserialize(end.response);
    } catch (err) {
      return internal(`the star's answer does not decode: ${(err as Error).message}`);
    }
    done({ status, response, sent: true });
  });
}
