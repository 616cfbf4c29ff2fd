// When a subscriber's bearer token expires, read from its `exp` claim without checking the
// signature (the star checked it when it authorized the subscriber). A hub ends the subscriber
// then, as a star ends a Subscribe whose token expires. Pure: no I/O.

import { bearerToken } from "../../../contract/bearer.ts";

/** The expiry in ms of a `Bearer <JWT>` credential; undefined for anything else. */
export function tokenExpiresAtMs(authorization: string | undefined): number | undefined {
  const match = /^[A-Za-z0-9_-]+\.([A-Za-z0-9_-]+)\.[A-Za-z0-9_-]*$/.exec(
    bearerToken(authorization) ?? "",
  );
  if (!match) return undefined;
  let claims: unknown;
  try {
    claims = JSON.parse(Buffer.from(match[1] as string, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
  const exp = (claims as { exp?: unknown } | null)?.exp;
  // Seconds with milliseconds as the fraction (how stars issue them): round off the float error.
  return typeof exp === "number" && Number.isFinite(exp) ? Math.round(exp * 1000) : undefined;
}
