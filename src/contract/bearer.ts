// The token of an `authorization: Bearer <token>` credential, by the one rule a star reads it
// with (the scheme in any case, one or more spaces, then a token without spaces): the gateway
// keys its per-client shares and reads a subscriber's token expiry by the same rule. Pure.

const BEARER = /^Bearer +([^ ]+)$/i;

/** The token, or undefined when `authorization` is not a bearer credential. */
export function bearerToken(authorization: string | undefined): string | undefined {
  return BEARER.exec(authorization ?? "")?.[1];
}
