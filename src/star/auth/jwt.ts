// JSON Web Tokens signed with HS256 (RFC 7519, RFC 7515 compact form, RFC 7518 §3.2), on
// node:crypto alone. Verification compares the signature as received, in its exact base64url
// text, so a token that differs from a signed one in any character is refused.
import { createHmac, timingSafeEqual } from "node:crypto";

/** Why a token was refused, for the UNAUTHENTICATED message. */
export class JwtError extends Error {
  override readonly name = "JwtError";
}

/** RFC 7518 §3.2: an HS256 key is at least as long as the hash output. */
export const MIN_HS256_KEY_BYTES = 32;

const HEADER = Buffer.from(JSON.stringify({ alg: "HS256", typ: "JWT" })).toString("base64url");
const SEGMENT = /^[A-Za-z0-9_-]*$/;

function hs256(key: Uint8Array, input: string): string {
  return createHmac("sha256", key).update(input, "ascii").digest("base64url");
}

/** The compact serialization of `claims` (a JSON object) signed with `key`. */
export function signJwt(claims: Record<string, unknown>, key: Uint8Array): string {
  const input = `${HEADER}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}`;
  return `${input}.${hs256(key, input)}`;
}

/**
 * The claims of a token `key` signed with HS256. Throws JwtError when the token is malformed,
 * names another algorithm or a critical extension, or its signature does not verify. Claims
 * such as `exp` are the caller's to judge.
 */
export function verifyJwt(token: string, key: Uint8Array): Record<string, unknown> {
  const parts = token.split(".");
  if (parts.length !== 3 || !parts.every((p) => SEGMENT.test(p))) {
    throw new JwtError("the token is not a JWT (three base64url segments)");
  }
  const [header, payload, signature] = parts as [string, string, string];
  const head = decodeObject(header, "header");
  if (head.alg !== "HS256") throw new JwtError("the token's alg is not HS256");
  // RFC 7515 §4.1.11: extensions this verifier does not understand must be refused.
  if (head.crit !== undefined) throw new JwtError("the token names critical header extensions");
  const expected = Buffer.from(hs256(key, `${header}.${payload}`), "ascii");
  const given = Buffer.from(signature, "ascii");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new JwtError("the token's signature does not verify");
  }
  return decodeObject(payload, "payload");
}

function decodeObject(segment: string, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(segment, "base64url").toString("utf8"));
  } catch {
    throw new JwtError(`the token's ${what} is not JSON`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new JwtError(`the token's ${what} is not a JSON object`);
  }
  return value as Record<string, unknown>;
}
