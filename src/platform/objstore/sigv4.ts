// AWS Signature Version 4 as S3 takes it (the path signed as sent, not encoded twice), written
// out rather than through the AWS SDK: its middleware stack and endpoint rules cost a star about
// 1 ms of CPU per request (docs/benchmarks.md, "The S3 client"). Tests compare every
// signature with the SDK's. An HMAC chain per day and two hashes per request.
import { createHash, createHmac, createSecretKey, type KeyObject } from "node:crypto";

export interface SigningSettings {
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
}

/** RFC 3986 encoding as SigV4 wants it: everything but unreserved characters escaped. */
export function uriEncode(s: string): string {
  return encodeURIComponent(s).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** An object key as a URL path: each `/`-separated segment encoded, the slashes kept. */
export const encodeKey = (key: string): string => key.split("/").map(uriEncode).join("/");

export const sha256Hex = (data: string | Uint8Array): string =>
  createHash("sha256").update(data).digest("hex");

/** `20260102T030405Z`: SigV4's time, whole seconds. */
export const amzDateOf = (now: Date): string => now.toISOString().replace(/[-:]|\.\d{3}/g, "");

/** A query string in SigV4's canonical form: names and values encoded, sorted by name. */
export function canonicalQuery(params: readonly (readonly [string, string])[]): string {
  return params
    .map(([name, value]) => [uriEncode(name), uriEncode(value)] as const)
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join("&");
}

const hmac = (key: Buffer | string, data: string): Buffer =>
  createHmac("sha256", key).update(data, "utf8").digest();

export interface Signer {
  readonly accessKeyId: string;
  /** `DATE/REGION/s3/aws4_request` for an amz date. */
  scope(amzDate: string): string;
  /** The hex signature of a canonical request made at an amz date. */
  sign(canonicalRequest: string, amzDate: string): string;
}

export function createSigner(settings: SigningSettings): Signer {
  /** The signing key of the last day used (it changes once a day); a KeyObject, as an HMAC
   * keyed with a Buffer costs several times more (Node converts it on every call). */
  let day = "";
  let signingKey: KeyObject | undefined;
  const scope = (amzDate: string): string =>
    `${amzDate.slice(0, 8)}/${settings.region}/s3/aws4_request`;
  return {
    accessKeyId: settings.accessKeyId,
    scope,
    sign(canonicalRequest, amzDate) {
      const date = amzDate.slice(0, 8);
      if (date !== day) {
        const kDate = hmac(`AWS4${settings.secretAccessKey}`, date);
        signingKey = createSecretKey(
          hmac(hmac(hmac(kDate, settings.region), "s3"), "aws4_request"),
        );
        day = date;
      }
      return createHmac("sha256", signingKey as KeyObject)
        .update(
          `AWS4-HMAC-SHA256\n${amzDate}\n${scope(amzDate)}\n${sha256Hex(canonicalRequest)}`,
          "utf8",
        )
        .digest("hex");
    },
  };
}

export interface RequestToSign {
  method: string;
  /** Encoded, as sent. */
  path: string;
  /** Canonical (canonicalQuery). */
  query: string;
  /** Every header to sign, names in lower case; `host` and `x-amz-date` among them. */
  headers: Readonly<Record<string, string>>;
  payloadHash: string;
}

/** The `authorization` header value for a request. */
export function authorization(signer: Signer, req: RequestToSign): string {
  const names = Object.keys(req.headers).sort();
  const amzDate = req.headers["x-amz-date"] ?? "";
  const canonicalHeaders = names.map(
    (name) => `${name}:${(req.headers[name] ?? "").trim().replace(/\s+/g, " ")}\n`,
  );
  const signedHeaders = names.join(";");
  const canonicalRequest = `${req.method}\n${req.path}\n${req.query}\n${canonicalHeaders.join("")}\n${signedHeaders}\n${req.payloadHash}`;
  const signature = signer.sign(canonicalRequest, amzDate);
  return `AWS4-HMAC-SHA256 Credential=${signer.accessKeyId}/${signer.scope(amzDate)}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
}
