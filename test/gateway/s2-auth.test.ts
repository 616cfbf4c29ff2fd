// The S2 SDK's accessToken against a fleet with auth: a nova bearer token (POST /v1/tokens)
// given as the SDK's accessToken is forwarded to the star as on nova's routes; no token, a bad
// one, or one without the grant surface as S2's authn and permission_denied.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { AppendInput, AppendRecord, S2, type S2Error } from "@s2-dev/streamstore";
import { request } from "undici";
import type { Gateway } from "../harness/gateway.ts";
import { type Stack, startStack } from "../harness/stack.ts";
import { withApiKeys } from "../harness/star-process.ts";

const SECRETS = { ops: "ops-secret-s2-1", reader: "reader-secret-s2-2" };

let stack: Stack<Gateway>;
let gw: Gateway;

before(async () => {
  stack = await startStack("nova-s2-auth-", {
    starArgs: withApiKeys(`ops ${SECRETS.ops} nova:*:*,reader ${SECRETS.reader} nova:read:*`),
  });
  gw = stack.gw;
});
after(() => stack?.close());

async function token(keyId: keyof typeof SECRETS): Promise<string> {
  const res = await request(`${gw.base}/v1/tokens`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      key_id: keyId,
      secret: SECRETS[keyId],
      scope: keyId === "ops" ? "nova:*:*" : "nova:read:*",
    }),
  });
  const body = (await res.body.json()) as { token: string };
  assert.equal(res.statusCode, 200, JSON.stringify(body));
  return body.token;
}

const client = (accessToken: string) =>
  new S2({
    accessToken,
    endpoints: { account: gw.base, basin: gw.base },
    retry: { maxAttempts: 1 },
  });

test("a nova token works as the SDK's accessToken; none, bad or too narrow ones do not", async () => {
  const ops = client(await token("ops"));
  const basin = `s2auth-${process.pid}`;
  await ops.basins.create({ basin });
  await ops.basin(basin).streams.create({ stream: "s" });
  const stream = ops.basin(basin).stream("s", { forceTransport: "fetch" });
  const ack = await stream.append(AppendInput.create([AppendRecord.string({ body: "x" })]));
  assert.equal(ack.end.seqNum, 1);

  await assert.rejects(client("not-a-token").basins.list(), (err: S2Error) => {
    assert.equal(err.status, 401);
    assert.equal(err.code, "authn");
    return true;
  });
  const reader = client(await token("reader"));
  const readOnly = reader.basin(basin).stream("s", { forceTransport: "fetch" });
  assert.equal((await readOnly.read({ start: { from: { seqNum: 0 } } })).records.length, 1);
  await assert.rejects(
    readOnly.append(AppendInput.create([AppendRecord.string({ body: "y" })])),
    (err: S2Error) => {
      assert.equal(err.status, 403);
      assert.equal(err.code, "permission_denied");
      return true;
    },
  );
  assert.equal((await stream.checkTail()).tail.seqNum, 1);
});
