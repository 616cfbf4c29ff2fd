// Who a request counts against in per-client bounds (append admission, open sessions): its
// credential when it has one (Authorization, or ?access_token=), else its address (the
// client's, not a proxy's, when the peer is a trusted proxy: Fastify's request.ip). The two are
// kept apart, so no credential can pass for an address and spend another client's share. The
// gateway does not verify tokens (stars do): a client inventing credentials gets a share for
// each, which the global bounds still cap.
import type { FastifyRequest } from "fastify";

export function clientKey(req: FastifyRequest): string {
  const credential = req.headers.authorization ?? accessToken(req.url);
  return credential === undefined ? `address ${req.ip}` : `credential ${credential}`;
}

function accessToken(url: string): string | undefined {
  const query = url.indexOf("?");
  if (query < 0 || !url.includes("access_token", query)) return undefined;
  return new URLSearchParams(url.slice(query + 1)).get("access_token") ?? undefined;
}
