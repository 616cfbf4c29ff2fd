// Who a request counts against in per-client bounds (append admission, open sessions): its
// credential when it has one, else its address (the client's, not a proxy's, when the peer is
// a trusted proxy: Fastify's request.ip).
import type { FastifyRequest } from "fastify";

export function clientKey(req: FastifyRequest): string {
  return req.headers.authorization ?? req.ip;
}
