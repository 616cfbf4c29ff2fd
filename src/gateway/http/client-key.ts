// Who a request counts against in per-client bounds (append admission, open sessions): its
// credential when it has one (the bearer token, from Authorization or, on a GET read, the
// access_token parameter the read takes it from), else its address (the client's, not a
// proxy's, when the peer is a trusted proxy: Fastify's request.ip). The two are kept apart, so
// no credential can pass for an address and spend another client's share. The gateway does not
// verify tokens (stars do): a client inventing credentials gets a share for each, which the
// global bounds still cap.
import type { FastifyRequest } from "fastify";
import { bearerToken } from "../../contract/bearer.ts";

export function clientKey(req: FastifyRequest): string {
  const header = req.headers.authorization;
  // The token as a star reads it: the same token spelled with more spaces is the same client.
  if (header !== undefined) return `credential ${bearerToken(header) ?? header}`;
  const token = req.method === "GET" ? accessToken(req) : undefined;
  return token === undefined ? `address ${req.ip}` : `credential ${token}`;
}

function accessToken(req: FastifyRequest): string | undefined {
  const value = (req.query as Record<string, unknown> | undefined)?.access_token;
  return typeof value === "string" && value !== "" ? value : undefined;
}
