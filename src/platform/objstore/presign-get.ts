// Presigned S3 GET URLs (Signature Version 4, query-string authentication), written out rather
// than through @aws-sdk/s3-request-presigner: the SDK spent about 1.9 ms of a star's CPU per URL
// (middleware stack, endpoint rules), and a catch-up plan signs one URL per chunk of history.
// This is the same URL, byte for byte (tests compare it with the SDK's for any key, time, expiry
// and addressing style).
import { parseEndpoint, targetOf } from "./s3-url.ts";
import { amzDateOf, createSigner, type SigningSettings, uriEncode } from "./sigv4.ts";

export interface PresignSettings extends SigningSettings {
  /** e.g. http://127.0.0.1:4568 (a path prefix is kept). */
  endpoint: string;
  /** default true */
  forcePathStyle?: boolean;
}

export type PresignGet = (
  bucket: string,
  key: string,
  expiresSeconds: number,
  now?: Date,
) => string;

export function createGetPresigner(settings: PresignSettings): PresignGet {
  const endpoint = parseEndpoint(settings.endpoint, settings.forcePathStyle ?? true);
  const signer = createSigner(settings);

  return (bucket, key, expiresSeconds, now = new Date()) => {
    const amzDate = amzDateOf(now);
    const { origin, host, path } = targetOf(endpoint, bucket, key);
    // In code-point order of the names, as the canonical query needs them.
    const query = [
      ["X-Amz-Algorithm", "AWS4-HMAC-SHA256"],
      ["X-Amz-Content-Sha256", "UNSIGNED-PAYLOAD"],
      ["X-Amz-Credential", `${settings.accessKeyId}/${signer.scope(amzDate)}`],
      ["X-Amz-Date", amzDate],
      ["X-Amz-Expires", String(expiresSeconds)],
      ["X-Amz-SignedHeaders", "host"],
      ["x-id", "GetObject"],
    ].map(([name, value]) => `${name}=${uriEncode(value as string)}`);
    const canonicalRequest = `GET\n${path}\n${query.join("&")}\nhost:${host}\n\nhost\nUNSIGNED-PAYLOAD`;
    // The SDK writes the signature in its sorted place; the same URL, so caches agree.
    const signed = `X-Amz-Signature=${signer.sign(canonicalRequest, amzDate)}`;
    query.splice(
      query.findIndex((param) => param > signed),
      0,
      signed,
    );
    return `${origin}${path}?${query.join("&")}`;
  };
}
