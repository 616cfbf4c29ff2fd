// When a create converges on what exists: a retry (the same creation_token and the same config)
// answers the descriptor its first attempt made; the same token with another config is another
// request, and ALREADY_EXISTS like any create of a name that is taken. The config is what the
// request asked for, before defaults: a retry after the bucket's defaults or the stream's config
// changed still converges.
import { createHash } from "node:crypto";

/** The digest kept beside a creation_token: of the config as the create request carried it. */
export function creationDigest(token: string, config: object | null | undefined): string {
  if (token === "") return "";
  // Decoded requests carry every field (absent optional ones as undefined) and proto-loader's
  // oneof markers (`_field`); what the request said is the rest, in a fixed order.
  const said = Object.entries(config ?? {})
    .filter(([field, value]) => value !== undefined && !field.startsWith("_"))
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return createHash("sha256").update(JSON.stringify(said)).digest("base64url");
}

/** Whether a create with this token and config is a retry of the one that made `existing`. */
export function isRetryOf(
  existing: { creation_token: string; creation_digest: string },
  token: string,
  config: object | null | undefined,
): boolean {
  if (token === "" || token !== existing.creation_token) return false;
  // A descriptor from before digests were kept: the token alone decides.
  return (
    existing.creation_digest === "" || existing.creation_digest === creationDigest(token, config)
  );
}

/** What an ALREADY_EXISTS adds when the token matched and the config did not. */
export function tokenClash(existing: { creation_token: string }, token: string): string {
  return token !== "" && token === existing.creation_token
    ? `; its creation_token was sent with another config, and a retry must ask for the same config (a new request takes a new token)`
    : "";
}
