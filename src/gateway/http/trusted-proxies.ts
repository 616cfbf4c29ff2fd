// --trust-proxy: the peers whose X-Forwarded-For is believed (addresses, CIDRs, or the names
// loopback, linklocal and uniquelocal). From such a peer the client's address, Fastify's
// request.ip (logs, append admission, session shares), is the right-most address of
// X-Forwarded-For that is not itself trusted; from any other peer the header is ignored, so a
// client cannot choose whose share it uses.
import { compile } from "@fastify/proxy-addr";

export type TrustProxy = (address: string, hop: number) => boolean;

/** The trust test for `list` (none: no peer is trusted); throws naming an entry it cannot read. */
export function trustedProxies(list: readonly string[]): TrustProxy | false {
  return list.length === 0 ? false : compile([...list]);
}
