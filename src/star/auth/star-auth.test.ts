import assert from "node:assert/strict";
import { test } from "node:test";
import { Metadata, status } from "@grpc/grpc-js";
import type { ExchangeTokenRequest__Output } from "../../gen/nova/v1/ExchangeTokenRequest.ts";
import { parseApiKey } from "./api-keys.ts";
import { formatScope } from "./scope.ts";
import { exchangeToken, StarAuth } from "./star-auth.ts";

const NOW = 1_700_000_000_000;
const auth = new StarAuth(
  {
    signingKey: "a signing key of at least 32 bytes!",
    apiKeys: [
      parseApiKey("app app-secret nova:read:* nova:append:bk1/in%2F* nova:admin:bk2", "t"),
      parseApiKey("narrow narrow-secret nova:append:bk1", "t"),
    ],
  },
  () => NOW,
);

const req = (fields: Partial<ExchangeTokenRequest__Output>): ExchangeTokenRequest__Output => ({
  key_id: "app",
  secret: "app-secret",
  ttl_seconds: 0,
  ...fields,
});
const metadata = (...values: string[]) => {
  const md = new Metadata();
  for (const v of values) md.add("authorization", v);
  return md;
};
const refused = (code: status, message: RegExp) => (err: unknown) => {
  const e = err as { code: number; message: string };
  assert.equal(e.code, code, e.message);
  assert.match(e.message, message);
  return true;
};

test("a bucket grant narrows the key's grants to the bucket, for 15 minutes by default", () => {
  const res = auth.exchange(req({ grant: "bucket", bucket: "bk1" }));
  const principal = auth.authenticate(metadata(`Bearer ${res.token}`));
  assert.equal(principal.keyId, "app");
  assert.equal(formatScope(principal.scope), "nova:read:bk1 nova:append:bk1/in%2F*");
  assert.equal(res.expires_at_unix_ms, String(NOW + 15 * 60 * 1000));
  assert.equal(principal.expiresAtMs, NOW + 15 * 60 * 1000);
  assert.throws(
    () =>
      auth.exchange(
        req({ key_id: "narrow", secret: "narrow-secret", grant: "bucket", bucket: "bk2" }),
      ),
    refused(status.PERMISSION_DENIED, /api key narrow has no grant on bucket "bk2"/),
  );
});

test("an explicit scope is granted when within the key's, else PERMISSION_DENIED", () => {
  const res = auth.exchange(
    req({ grant: "scope", scope: "nova:append:bk1/in%2Fx*", ttl_seconds: 7200 }),
  );
  const principal = auth.authenticate(metadata(`bearer ${res.token}`));
  assert.equal(formatScope(principal.scope), "nova:append:bk1/in%2Fx*");
  assert.equal(principal.expiresAtMs, NOW + 3600 * 1000);
  assert.throws(
    () => auth.exchange(req({ grant: "scope", scope: "nova:append:bk1" })),
    refused(status.PERMISSION_DENIED, /not within api key app's grants/),
  );
});

test("ExchangeToken refuses bad credentials and bad grants", () => {
  const cases: [Partial<ExchangeTokenRequest__Output>, status, RegExp][] = [
    [
      { secret: "wrong", grant: "bucket", bucket: "bk1" },
      status.UNAUTHENTICATED,
      /unknown api key or wrong secret/,
    ],
    [
      { secret: "", grant: "bucket", bucket: "bk1" },
      status.UNAUTHENTICATED,
      /unknown api key or wrong secret/,
    ],
    [
      { key_id: "nobody", grant: "bucket", bucket: "bk1" },
      status.UNAUTHENTICATED,
      /unknown api key or wrong secret/,
    ],
    [
      { key_id: "narrow", grant: "bucket", bucket: "bk1" },
      status.UNAUTHENTICATED,
      /unknown api key or wrong secret/,
    ],
    [{}, status.INVALID_ARGUMENT, /exactly one of bucket or scope/],
    [{ grant: "bucket", bucket: "B1" }, status.INVALID_ARGUMENT, /"B1" is not a bucket name/],
    [{ grant: "scope", scope: "nova:write" }, status.INVALID_ARGUMENT, /scope: .*action/],
    [{ grant: "scope", scope: "" }, status.INVALID_ARGUMENT, /scope: the scope is empty/],
  ];
  for (const [fields, code, message] of cases) {
    assert.throws(() => auth.exchange(req(fields)), refused(code, message), JSON.stringify(fields));
  }
});

test("authenticate takes exactly one `Bearer <token>`", async () => {
  const { token = "" } = auth.exchange(req({ grant: "bucket", bucket: "bk1" }));
  const cases: [Metadata, RegExp][] = [
    [metadata(), /needs a token: send authorization: Bearer <token>/],
    [metadata(`Basic ${token}`), /must be one value: Bearer <token>/],
    [metadata(token), /must be one value/],
    [metadata("Bearer"), /must be one value/],
    [metadata(`Bearer ${token}`, `Bearer ${token}`), /must be one value/],
    [metadata(`Bearer ${token}x`), /signature does not verify/],
    [metadata("Bearer a.b.c"), /not JSON/],
  ];
  for (const [md, message] of cases) {
    assert.throws(() => auth.authenticate(md), refused(status.UNAUTHENTICATED, message));
  }
  const later = new StarAuth(
    { signingKey: "a signing key of at least 32 bytes!", apiKeys: [] },
    () => NOW + 15 * 60 * 1000,
  );
  assert.throws(
    () => later.authenticate(metadata(`Bearer ${token}`)),
    refused(status.UNAUTHENTICATED, /expired/),
  );
});

test("check: a valid token outside its scope is PERMISSION_DENIED", () => {
  const { token = "" } = auth.exchange(req({ grant: "bucket", bucket: "bk1" }));
  const md = metadata(`Bearer ${token}`);
  const need = (action: "read" | "append", key: string) => ({
    action,
    resource: { bucket: "bk1", prefix: key },
    what: `stream ${key}`,
  });
  assert.equal(auth.check(md, need("append", "in/x")).keyId, "app");
  assert.throws(
    () => auth.check(md, need("append", "out")),
    refused(status.PERMISSION_DENIED, /does not allow append on stream out/),
  );
});

test("a signing key is at least 32 bytes; without one ExchangeToken is UNIMPLEMENTED", async () => {
  assert.throws(() => new StarAuth({ signingKey: "x".repeat(31), apiKeys: [] }), /32 bytes/);
  await assert.rejects(
    exchangeToken(undefined, req({ grant: "bucket", bucket: "bk1" })),
    refused(status.UNIMPLEMENTED, /needs a signing key/),
  );
});
