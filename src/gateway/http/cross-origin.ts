// Requests that change state from a page of another origin are refused unless --cors-origins
// names it. CORS only hides a cross-origin answer from the page: a form or a fetch with a
// "simple" content type (text/plain, as a Durable Streams append may be) is sent without a
// preflight and carried out. Browsers send `Origin` on every such request; other clients send
// none and are not concerned. Same-origin pages (the console) are recognised by the host they
// asked: Host, or the X-Forwarded-Host of a --trust-proxy peer (a proxy that rewrites Host).
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { permissionDenied } from "../errors/index.ts";

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

export interface CrossOriginSettings {
  /** --cors-origins: the other origins whose pages may use the gateway. */
  allowed: readonly string[];
}

/**
 * Whether a request from a page of `origin` reached the host it came from (a default port
 * dropped on both sides, as URLs do).
 */
function sameOrigin(origin: string, host: string | undefined): boolean {
  const page = URL.parse(origin);
  if (!page || host === undefined) return false;
  return URL.parse(`${page.protocol}//${host}`)?.host === page.host;
}

export const crossOriginPlugin = fp(async (app: FastifyInstance, opts: CrossOriginSettings) => {
  const allowed = new Set(opts.allowed);
  app.addHook("onRequest", async (req) => {
    const origin = req.headers.origin;
    if (origin === undefined || SAFE.has(req.method) || allowed.has(origin)) return;
    // The host asked: a --trust-proxy peer's X-Forwarded-Host, else Host (:authority).
    if (sameOrigin(origin, req.host || undefined)) return;
    throw permissionDenied(
      `a ${req.method} from a page of ${origin}, another origin: only --cors-origins may change state from a browser`,
    );
  });
});
