// The `nova:` scope grammar (docs/auth.md): what a token or an api key may do, where.
//
//   scope    = grant *( " " grant )
//   grant    = "nova:" action [ ":" resource ]      ; no resource means "*"
//   action   = "read" / "append" / "create" / "trim" / "admin" / "node" / "*"
//   resource = "*" / bucket / bucket "/" prefix "*"
//   prefix   = 1*( unreserved / pct-encoded )       ; a stream key prefix, canonically encoded
//
// Resources nest: every bucket ⊇ one bucket ⊇ its stream keys starting with a prefix ⊇ those
// starting with a longer one. A grant on a bucket covers the bucket itself (GetBucket,
// ListStreams, bucket admin) and all its streams; a prefix grant covers only streams.
import { BUCKET_NAME, MAX_STREAM_KEY_BYTES } from "../../contract/wire-limits.ts";

// "node": what a fleet member needs of another (SettleStar), and nothing else.
export const ACTIONS = ["read", "append", "create", "trim", "admin", "node"] as const;
export type Action = (typeof ACTIONS)[number];

/** No bucket: every bucket. A prefix: the streams in the bucket whose key starts with it. */
export interface Resource {
  readonly bucket?: string;
  readonly prefix?: string;
}

export interface Grant {
  /** "*": all six actions. */
  readonly action: Action | "*";
  readonly resource: Resource;
}

export type Scope = readonly Grant[];

/** Bounds what a token carries in every call's metadata. */
export const MAX_SCOPE_CHARS = 4096;

export class ScopeError extends Error {
  override readonly name = "ScopeError";
}

const UNRESERVED_OR_PCT = /^(?:[A-Za-z0-9._~-]|%[0-9A-F]{2})+$/;

/** Percent-encodes all but RFC 3986's unreserved characters, upper-case hex. */
export function encodePrefix(prefix: string): string {
  return encodeURIComponent(prefix).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

function decodePrefix(text: string, grant: string): string {
  let prefix: string | undefined;
  if (UNRESERVED_OR_PCT.test(text)) {
    try {
      prefix = decodeURIComponent(text);
    } catch {
      // Not UTF-8: refused below.
    }
  }
  // Only the canonical encoding is accepted, so one resource has one spelling.
  if (prefix === undefined || encodePrefix(prefix) !== text) {
    throw new ScopeError(
      `${JSON.stringify(grant)}: the key prefix must be UTF-8 percent-encoded, every character but A-Z a-z 0-9 - . _ ~ as upper-case %XX`,
    );
  }
  if (Buffer.byteLength(prefix, "utf8") > MAX_STREAM_KEY_BYTES) {
    throw new ScopeError(
      `${JSON.stringify(grant)}: the key prefix is longer than a stream key (${MAX_STREAM_KEY_BYTES} bytes)`,
    );
  }
  return prefix;
}

function parseResource(text: string, grant: string): Resource {
  if (text === "*") return {};
  const slash = text.indexOf("/");
  const bucket = slash === -1 ? text : text.slice(0, slash);
  if (!BUCKET_NAME.test(bucket)) {
    throw new ScopeError(
      `${JSON.stringify(grant)}: the resource is "*", a bucket name, or BUCKET/PREFIX* (a bucket name is 3 to 48 of a-z, 0-9 and "-")`,
    );
  }
  if (slash === -1) return { bucket };
  const rest = text.slice(slash + 1);
  if (!rest.endsWith("*") || rest.length < 2) {
    throw new ScopeError(
      `${JSON.stringify(grant)}: a key prefix is non-empty and ends with "*" (BUCKET/PREFIX*)`,
    );
  }
  return { bucket, prefix: decodePrefix(rest.slice(0, -1), grant) };
}

function parseGrant(text: string): Grant {
  const parts = text.split(":");
  const action = parts[1] ?? "";
  if (parts[0] !== "nova" || parts.length < 2 || parts.length > 3) {
    throw new ScopeError(
      `${JSON.stringify(text)} is not a grant: nova:ACTION or nova:ACTION:RESOURCE`,
    );
  }
  if (action !== "*" && !(ACTIONS as readonly string[]).includes(action)) {
    throw new ScopeError(
      `${JSON.stringify(text)}: the action is one of ${ACTIONS.join(", ")} or "*"`,
    );
  }
  const resource = parts[2] === undefined ? {} : parseResource(parts[2], text);
  return { action: action as Grant["action"], resource };
}

/** Grants separated by single spaces. Throws ScopeError with the first problem found. */
export function parseScope(text: string): Scope {
  if (text.length > MAX_SCOPE_CHARS) {
    throw new ScopeError(`a scope is at most ${MAX_SCOPE_CHARS} characters`);
  }
  if (text === "") throw new ScopeError("the scope is empty: give at least one grant");
  return text.split(" ").map((grant) => {
    if (grant === "") throw new ScopeError("grants are separated by exactly one space");
    return parseGrant(grant);
  });
}

export function formatResource(resource: Resource): string {
  if (resource.bucket === undefined) return "*";
  if (resource.prefix === undefined) return resource.bucket;
  return `${resource.bucket}/${encodePrefix(resource.prefix)}*`;
}

/** The canonical text: every grant with its resource, in order. */
export function formatScope(scope: Scope): string {
  return scope.map((g) => `nova:${g.action}:${formatResource(g.resource)}`).join(" ");
}

/** Whether `inner` lies within `outer`. */
export function contains(outer: Resource, inner: Resource): boolean {
  if (outer.bucket === undefined) return true;
  if (inner.bucket !== outer.bucket) return false;
  if (outer.prefix === undefined) return true;
  return inner.prefix?.startsWith(outer.prefix) ?? false;
}

/** Whether the scope lets `action` act on `resource` (a stream is its bucket and key as prefix). */
export function allows(scope: Scope, action: Action, resource: Resource): boolean {
  return scope.some(
    (g) => (g.action === "*" || g.action === action) && contains(g.resource, resource),
  );
}

/** Whether every grant of `requested`, each of its actions, is covered by one grant of `allowed`. */
export function isSubset(requested: Scope, allowed: Scope): boolean {
  return requested.every((g) =>
    (g.action === "*" ? ACTIONS : [g.action]).every((a) => allows(allowed, a, g.resource)),
  );
}

/** `allowed` cut down to one bucket: what of it applies inside the bucket, nothing outside. */
export function narrowToBucket(allowed: Scope, bucket: string): Scope {
  const narrowed: Grant[] = [];
  for (const g of allowed) {
    const grant = contains(g.resource, { bucket }) ? { action: g.action, resource: { bucket } } : g;
    if (grant.resource.bucket !== bucket) continue;
    const text = formatScope([grant]);
    if (!narrowed.some((n) => formatScope([n]) === text)) narrowed.push(grant);
  }
  return narrowed;
}
