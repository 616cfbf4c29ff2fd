// DNS rebinding: a page of any site whose name its owner makes resolve to 127.0.0.1 is
// same-origin with a gateway listening there, and may use it as the console does (without auth,
// read, write and delete everything). A gateway that listens on a loopback address (the
// default) answers only requests whose Host names it so (localhost, a loopback address) or
// names one of --allowed-hosts; one that listens elsewhere checks only when given that flag.
import { isIPv4, isIPv6 } from "node:net";
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { permissionDenied } from "../errors/index.ts";

export interface HostCheckSettings {
  /**
   * Host names answered besides localhost and loopback addresses (--allowed-hosts); one that
   * starts with "." also answers the names under it (S2's `{basin}.<host>` addressing).
   */
  allowed: readonly string[];
}

/**
 * localhost, a name under .localhost (RFC 6761), or an address of 127.0.0.0/8 or ::1 (also
 * IPv4-mapped, in the hex form URLs give it: [::ffff:7f00:1]).
 */
export function isLoopbackName(name: string): boolean {
  const lower = name.toLowerCase();
  if (lower === "localhost" || lower.endsWith(".localhost")) return true;
  const bare = lower.startsWith("[") && lower.endsWith("]") ? lower.slice(1, -1) : lower;
  if (isIPv4(bare)) return bare.startsWith("127.");
  if (!isIPv6(bare)) return false;
  return bare === "::1" || /^::ffff:(127\.|7f[0-9a-f]{2}:)/.test(bare);
}

/**
 * The name of a Host header as a URL reads it (lower case, 127.1 as 127.0.0.1, an IPv6 address
 * in brackets), without its port or a final dot.
 */
export function hostName(host: string): string {
  const name = URL.parse(`http://${host}`)?.hostname ?? host.toLowerCase();
  return name.endsWith(".") ? name.slice(0, -1) : name;
}

export const hostCheckPlugin = fp(async (app: FastifyInstance, opts: HostCheckSettings) => {
  const names = opts.allowed.map((name) => name.toLowerCase());
  const exact = new Set(names.map((name) => name.replace(/^\./, "")));
  const suffixes = names.filter((name) => name.startsWith("."));
  // The Host last answered: requests nearly all give the same, which then costs no URL parse.
  let answered: string | undefined;
  app.addHook("onRequest", async (req) => {
    const host = req.headers.host ?? (req.headers[":authority"] as string | undefined);
    // HTTP/1.0 may send none; no browser does.
    if (host === undefined || host === answered) return;
    const name = hostName(host);
    const allowed =
      isLoopbackName(name) || exact.has(name) || suffixes.some((suffix) => name.endsWith(suffix));
    if (allowed) {
      answered = host;
      return;
    }
    throw permissionDenied(
      `Host ${JSON.stringify(name)} is not a name of this gateway: it answers localhost, loopback addresses and --allowed-hosts`,
    );
  });
});
