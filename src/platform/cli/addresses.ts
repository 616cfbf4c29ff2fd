// Checks of flags that name a peer: HOST:PORT (stars, fleet members) and an http(s) URL (an S3
// endpoint). A value that cannot name one stops the program at its flag, rather than leaving
// every call to fail later as unavailable.
import type { Check } from "./flags.ts";

// A host name may hold "_" (Compose's project_service_1 names resolve so).
const HOST_PORT = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):(\d{1,5})$/;

/** HOST:PORT: a name, an IPv4 address or a bracketed IPv6 one, and a port from 1 to 65535. */
export const hostPort: Check = (value) => {
  const port = Number(HOST_PORT.exec(value)?.[2]);
  return port >= 1 && port <= 65535 ? undefined : "is not HOST:PORT with a port from 1 to 65535";
};

/**
 * An absolute http: or https: URL, without credentials in it: an endpoint is logged, and
 * handed on (a star's presigned URLs name it), so a secret belongs in a flag of its own.
 */
export const httpUrl: Check = (value) => {
  const url = URL.parse(value);
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:") || url.host === "") {
    return "is not an http:// or https:// URL";
  }
  return url.username === "" && url.password === ""
    ? undefined
    : "holds credentials (user:password@): the URL is logged; give them with their own flags";
};
