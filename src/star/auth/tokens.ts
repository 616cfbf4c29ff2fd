// The star's bearer tokens: HS256 JWTs whose claims are the api key (`sub`), the canonical
// nova: scope (`scope`), and issue and expiry times (`iat`, `exp`: NumericDate seconds, with
// milliseconds as the fraction so `expires_at_unix_ms` is exact).
import { JwtError, signJwt, verifyJwt } from "./jwt.ts";
import { formatScope, parseScope, type Scope, ScopeError } from "./scope.ts";

export const DEFAULT_TTL_SECONDS = 15 * 60;
export const MAX_TTL_SECONDS = 60 * 60;

/** What a verified token grants. */
export interface Principal {
  /** The api key the token was exchanged for. */
  readonly keyId: string;
  readonly scope: Scope;
  readonly expiresAtMs: number;
}

export class TokenError extends Error {
  override readonly name = "TokenError";
}

/** ExchangeToken's ttl_seconds: 0 is the default, anything over the maximum is clamped. */
export function effectiveTtlSeconds(ttlSeconds: number): number {
  return ttlSeconds === 0 ? DEFAULT_TTL_SECONDS : Math.min(ttlSeconds, MAX_TTL_SECONDS);
}

export function issueToken(
  key: Uint8Array,
  grant: { keyId: string; scope: Scope; nowMs: number; ttlSeconds: number },
): { token: string; expiresAtMs: number } {
  const expiresAtMs = grant.nowMs + grant.ttlSeconds * 1000;
  const token = signJwt(
    {
      sub: grant.keyId,
      scope: formatScope(grant.scope),
      iat: grant.nowMs / 1000,
      exp: expiresAtMs / 1000,
    },
    key,
  );
  return { token, expiresAtMs };
}

/** The principal of a token signed with `key` and unexpired at `nowMs`; else TokenError. */
export function readToken(key: Uint8Array, token: string, nowMs: number): Principal {
  let claims: Record<string, unknown>;
  try {
    claims = verifyJwt(token, key);
  } catch (err) {
    if (err instanceof JwtError) throw new TokenError(err.message);
    throw err;
  }
  const { sub, scope, exp } = claims;
  if (typeof sub !== "string" || typeof scope !== "string" || typeof exp !== "number") {
    throw new TokenError("the token lacks its sub, scope or exp claim");
  }
  const expiresAtMs = Math.round(exp * 1000);
  if (!(nowMs < expiresAtMs)) throw new TokenError("the token has expired");
  try {
    return { keyId: sub, scope: parseScope(scope), expiresAtMs };
  } catch (err) {
    if (err instanceof ScopeError) throw new TokenError(`the token's scope: ${err.message}`);
    throw err;
  }
}
