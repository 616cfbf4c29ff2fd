// One unary gRPC call over a bare HTTP/2 session, the gateway's own path to its stars
// (src/gateway/upstream/h2-unary.ts): the benches' "direct gRPC", so that a row measures the star
// and not the client's gRPC library (grpc-js costs its caller 100 to 230 µs more a call,
// docs/benchmarks.md).
import type http2 from "node:http2";
import { Metadata } from "@grpc/grpc-js";
import type { MethodDefinition } from "@grpc/proto-loader";
import { nova, type RequestOf, type UnaryMethod } from "../src/contract/proto/index.ts";
import { startUnary } from "../src/gateway/upstream/h2-unary.ts";

const SERVICE = nova.DataPlaneService.service;
const NO_METADATA = new Metadata();

export function bareUnary<M extends UnaryMethod>(
  session: http2.ClientHttp2Session,
  method: M,
  request: RequestOf<M>,
): Promise<unknown> {
  const def = SERVICE[method] as unknown as MethodDefinition<
    RequestOf<M>,
    unknown,
    unknown,
    unknown
  >;
  return new Promise((resolve, reject) => {
    startUnary(session, def, request, NO_METADATA, Infinity, (ended) => {
      if (ended.status.code === 0) resolve(ended.response);
      else reject(new Error(`status ${ended.status.code}: ${ended.status.details}`));
    });
  });
}
