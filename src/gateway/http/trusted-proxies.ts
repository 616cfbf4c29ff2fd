// --trust-proxy: the peers whose X-Forwarded-For is believed (addresses, CIDRs, or the names
// loopback, linklocal and uniquelocal). From such a peer the client's address, Fastify's
// request.ip (logs, append admission, session shares), is the right-most address of
// X-Forwarded-For that is not itself trusted; from any other peer the header is ignored, so a
// client cannot choose whose share it uses. --forwarded-header=forwarded reads RFC 7239's
// Forwarded instead, for balancers that write that one.
import type { IncomingMessage } from "node:http";
import { compile } from "@fastify/proxy-addr";
import { forwardedFor } from "./forwarded-header.ts";

export type TrustProxy = (address: string, hop: number) => boolean;

/** The trust test for `list` (none: no peer is trusted); throws naming an entry it cannot read. */
export function trustedProxies(list: readonly string[]): TrustProxy | false {
  return list.length === 0 ? false : compile([...list]);
}

/**
 * With `forwarded`, each request's X-Forwarded-For becomes the `for=` nodes of its Forwarded
 * header before anything reads it, and one the client sent itself is dropped: a balancer that
 * writes Forwarded passes X-Forwarded-For through untouched, so only one header can be believed.
 */
export function readForwardedHeader<Req extends IncomingMessage, Res>(
  handler: (req: Req, res: Res) => void,
): (req: Req, res: Res) => void {
  return (req, res) => {
    const nodes = forwardedFor(req.headers.forwarded);
    if (nodes.length > 0) req.headers["x-forwarded-for"] = nodes.join(", ");
    else delete req.headers["x-forwarded-for"];
    handler(req, res);
  };
}
