// S2's s2s transport (length-prefixed protobuf sessions, content-type s2s/proto) is not served
// yet: the one place the records routes send it, answering 501 in S2's shape.
import type { FastifyRequest } from "fastify";
import { s2Error } from "./errors.ts";

export const S2S_TYPE = "s2s/proto";

export function isS2s(req: FastifyRequest): boolean {
  return req.headers["content-type"]?.split(";")[0]?.trim() === S2S_TYPE;
}

export async function serveS2s(): Promise<never> {
  throw s2Error(
    "not_implemented",
    'the s2s transport is not served yet; use the SDK\'s fetch transport (forceTransport: "fetch")',
  );
}
