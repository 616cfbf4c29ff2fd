// A star's auth when it has a signing key: ExchangeToken (api key in, token out), the bearer
// token of each call's metadata, and the scope check of each verb.

import { createHash, timingSafeEqual } from "node:crypto";
import { type Metadata, status } from "@grpc/grpc-js";
import { bearerToken } from "../../contract/bearer.ts";
import { BUCKET_NAME } from "../../contract/wire-limits.ts";
import type { ExchangeTokenRequest__Output } from "../../gen/nova/v1/ExchangeTokenRequest.ts";
import type { ExchangeTokenResponse } from "../../gen/nova/v1/ExchangeTokenResponse.ts";
import { invalidArgument, StarError } from "../errors.ts";
import { type ApiKey, indexApiKeys } from "./api-keys.ts";
import { MIN_HS256_KEY_BYTES } from "./jwt.ts";
import {
  type Action,
  allows,
  isSubset,
  narrowToBucket,
  parseScope,
  type Resource,
  type Scope,
  ScopeError,
} from "./scope.ts";
import {
  effectiveTtlSeconds,
  issueToken,
  type Principal,
  readToken,
  TokenError,
} from "./tokens.ts";

export interface AuthConfig {
  /** The HS256 key, as given (its UTF-8 bytes sign); at least 32 bytes. */
  signingKey: string;
  apiKeys: readonly ApiKey[];
}

/** What a verb needs of the caller's scope, and how to name it in a refusal. */
export interface Need {
  action: Action;
  resource: Resource;
  what: string;
}

export const unauthenticated = (message: string) => new StarError(status.UNAUTHENTICATED, message);
export const permissionDenied = (message: string) =>
  new StarError(status.PERMISSION_DENIED, message);

const digest = (s: string) => createHash("sha256").update(s, "utf8").digest();

export class StarAuth {
  readonly #key: Buffer;
  readonly #apiKeys: Map<string, ApiKey>;
  readonly #now: () => number;
  /** Compared against when the key id is unknown, so both refusals cost the same. */
  readonly #decoy = digest("nova: no such api key");

  constructor(config: AuthConfig, now: () => number = Date.now) {
    this.#key = Buffer.from(config.signingKey, "utf8");
    if (this.#key.length < MIN_HS256_KEY_BYTES) {
      throw new Error(`the signing key must be at least ${MIN_HS256_KEY_BYTES} bytes (HS256)`);
    }
    this.#apiKeys = indexApiKeys(config.apiKeys);
    this.#now = now;
  }

  now(): number {
    return this.#now();
  }

  exchange(req: ExchangeTokenRequest__Output): ExchangeTokenResponse {
    if (req.grant === undefined) throw invalidArgument("give exactly one of bucket or scope");
    const apiKey = this.#apiKeys.get(req.key_id);
    const given = digest(req.secret);
    const known = apiKey ? digest(apiKey.secret) : this.#decoy;
    if (!timingSafeEqual(given, known) || !apiKey) {
      throw unauthenticated("unknown api key or wrong secret");
    }
    const scope =
      req.grant === "bucket"
        ? bucketGrant(apiKey, req.bucket ?? "")
        : explicit(apiKey, req.scope ?? "");
    const { token, expiresAtMs } = issueToken(this.#key, {
      keyId: apiKey.id,
      scope,
      nowMs: this.#now(),
      ttlSeconds: effectiveTtlSeconds(req.ttl_seconds),
    });
    return { token, expires_at_unix_ms: String(expiresAtMs) };
  }

  /** The principal of the call's `authorization: Bearer <token>`; else UNAUTHENTICATED. */
  authenticate(metadata: Metadata): Principal {
    const values = metadata.get("authorization");
    if (values.length === 0) {
      throw unauthenticated("this star needs a token: send authorization: Bearer <token>");
    }
    const token = values.length === 1 ? bearerToken(String(values[0])) : undefined;
    if (token === undefined) {
      throw unauthenticated("the authorization metadata must be one value: Bearer <token>");
    }
    try {
      return readToken(this.#key, token, this.#now());
    } catch (err) {
      if (err instanceof TokenError) throw unauthenticated(err.message);
      throw err;
    }
  }

  /**
   * `authorization` metadata for work this star passes to another member on behalf of the call,
   * when the work needs `scope` and the verb the caller was authorized for implies it (DeleteBucket
   * deletes the bucket's streams at their leaders). The token names the caller's api key and
   * expires with the caller's token.
   */
  delegate(metadata: Metadata, scope: Scope): string {
    const principal = this.authenticate(metadata);
    const nowMs = this.#now();
    const { token } = issueToken(this.#key, {
      keyId: principal.keyId,
      scope,
      nowMs,
      ttlSeconds: (principal.expiresAtMs - nowMs) / 1000,
    });
    return `Bearer ${token}`;
  }

  /** Authenticates the call and checks its scope covers `need`; returns the principal. */
  check(metadata: Metadata, need: Need): Principal {
    return this.require(this.authenticate(metadata), need);
  }

  /** Checks an authenticated principal's scope covers `need`; returns the principal. */
  require(principal: Principal, need: Need): Principal {
    if (!allows(principal.scope, need.action, need.resource)) {
      throw permissionDenied(`the token's scope does not allow ${need.action} on ${need.what}`);
    }
    return principal;
  }
}

function bucketGrant(apiKey: ApiKey, bucket: string): Scope {
  if (!BUCKET_NAME.test(bucket)) {
    throw invalidArgument(`bucket: ${JSON.stringify(bucket)} is not a bucket name`);
  }
  const scope = narrowToBucket(apiKey.scope, bucket);
  if (scope.length === 0) {
    throw permissionDenied(`api key ${apiKey.id} has no grant on bucket ${JSON.stringify(bucket)}`);
  }
  return scope;
}

function explicit(apiKey: ApiKey, text: string): Scope {
  let scope: Scope;
  try {
    scope = parseScope(text);
  } catch (err) {
    if (err instanceof ScopeError) throw invalidArgument(`scope: ${err.message}`);
    throw err;
  }
  if (!isSubset(scope, apiKey.scope)) {
    throw permissionDenied(`the scope asked for is not within api key ${apiKey.id}'s grants`);
  }
  return scope;
}

/** The ExchangeToken verb: UNIMPLEMENTED on a star without a signing key. */
export async function exchangeToken(
  auth: StarAuth | undefined,
  req: ExchangeTokenRequest__Output,
): Promise<ExchangeTokenResponse> {
  if (!auth) {
    throw new StarError(
      status.UNIMPLEMENTED,
      "ExchangeToken needs a signing key; this star runs with auth off",
    );
  }
  return auth.exchange(req);
}
