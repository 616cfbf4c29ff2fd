// How a request is logged: Fastify's request fields with the URL's access_token redacted, so a
// credential sent as a query parameter (EventSource cannot send headers) never reaches the logs.
import type { FastifyRequest } from "fastify";

/** `url` with the value of every access_token parameter replaced, however its name is encoded. */
export function redactAccessToken(url: string): string {
  const q = url.indexOf("?");
  if (q === -1) return url;
  const params = url
    .slice(q + 1)
    .split("&")
    .map((param) => {
      const eq = param.indexOf("=");
      const name = eq === -1 ? param : param.slice(0, eq);
      let decoded = name;
      try {
        decoded = decodeURIComponent(name.replaceAll("+", " "));
      } catch {
        // Not percent-encoding: compared as written.
      }
      return decoded === "access_token" ? `${name}=[redacted]` : param;
    });
  return `${url.slice(0, q)}?${params.join("&")}`;
}

/** How a request is logged: Fastify's own fields, the URL without its access_token. */
export function requestLogFields(req: FastifyRequest) {
  return {
    method: req.method,
    url: redactAccessToken(req.url),
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}
