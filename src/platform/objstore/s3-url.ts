// Where a bucket's objects are addressed: path-style (`ENDPOINT/BUCKET/KEY`, what s3rver and most
// self-hosted stores take) or virtual-hosted (`BUCKET.HOST/KEY`, AWS's default), by the AWS SDK's
// rule, so a store is reached at the URL it was reached at before.
import { isIP } from "node:net";
import { encodeKey, uriEncode } from "./sigv4.ts";

export interface S3Endpoint {
  protocol: string;
  host: string;
  /** The endpoint's path, without its trailing slash ("" for none). */
  prefix: string;
  /** Path-style addressing: asked for, or an endpoint at an IP address. */
  pathStyle: boolean;
}

export function parseEndpoint(endpoint: string, forcePathStyle: boolean): S3Endpoint {
  const url = new URL(endpoint);
  return {
    protocol: url.protocol,
    host: url.host,
    prefix: url.pathname.replace(/\/+$/, ""),
    pathStyle: forcePathStyle || isIP(url.hostname.replace(/^\[|\]$/g, "")) !== 0,
  };
}

/** DNS labels before an endpoint's host: one over TLS (a certificate's wildcard covers one). */
const virtualHostable = (bucket: string, tls: boolean): boolean =>
  (tls ? [bucket] : bucket.split(".")).every((label) =>
    /^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/.test(label),
  );

export interface S3Target {
  /** `http://host:port`, the bucket's host for virtual-hosted addressing. */
  origin: string;
  host: string;
  /** Encoded, as sent and signed. */
  path: string;
}

/** A bucket's (key undefined) or an object's address. */
export function targetOf(endpoint: S3Endpoint, bucket: string, key?: string): S3Target {
  const rest = key === undefined ? "" : encodeKey(key);
  if (endpoint.pathStyle || !virtualHostable(bucket, endpoint.protocol === "https:")) {
    const path = `${endpoint.prefix}/${uriEncode(bucket)}${key === undefined ? "" : `/${rest}`}`;
    return { origin: `${endpoint.protocol}//${endpoint.host}`, host: endpoint.host, path };
  }
  const host = `${bucket}.${endpoint.host}`;
  return { origin: `${endpoint.protocol}//${host}`, host, path: `${endpoint.prefix}/${rest}` };
}
