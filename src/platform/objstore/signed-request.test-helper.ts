// Test support: headers that sign a raw request to s3rver as the store's S3 clients do (SigV4
// with s3rver's fixed credentials, the body unsigned), for tests that speak HTTP to it by hand.
import { amzDateOf, authorization, canonicalQuery, createSigner } from "./sigv4.ts";

const signer = createSigner({
  region: "us-east-1",
  accessKeyId: "S3RVER",
  secretAccessKey: "S3RVER",
});

export function signedHeaders(method: string, url: string): Record<string, string> {
  const u = new URL(url);
  const headers = {
    host: u.host,
    "x-amz-date": amzDateOf(new Date()),
    "x-amz-content-sha256": "UNSIGNED-PAYLOAD",
  };
  const query = canonicalQuery([...u.searchParams]);
  const req = { method, path: u.pathname, query, headers, payloadHash: "UNSIGNED-PAYLOAD" };
  return { ...headers, authorization: authorization(signer, req) };
}
