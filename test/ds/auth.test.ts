// The Durable Streams face against a star with a signing key: forks and deletes with a token
// narrowed to key prefixes of the face's bucket, as a tenant of a shared bucket has one.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type Gateway, inProcessGateway } from "../harness/gateway.ts";
import { type StarProcess, startStarProcess, withApiKeys } from "../harness/star-process.ts";

const DS = { bucket: "ds-auth", longPollMs: 1000, sseCloseS: 60 };
const SECRETS = { ops: "ops-secret-4c1e", tenant: "tenant-secret-9a07" };

describe("the Durable Streams face with auth", () => {
  let star: StarProcess | undefined;
  let gw: Gateway | undefined;
  let dir: string | undefined;
  const tokens = { ops: "", tenant: "" };
  const url = (path: string) => `${(gw as Gateway).base}/ds/v1/stream/${path}`;
  const as = (who: keyof typeof tokens, headers: Record<string, string> = {}) => ({
    ...headers,
    authorization: `Bearer ${tokens[who]}`,
  });

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "nova-ds-auth-"));
    star = await startStarProcess([
      "--data-dir",
      dir,
      ...withApiKeys([
        `ops ${SECRETS.ops} nova:*:*`,
        // Reads, forks and deletes under mine/; reads and marks (create) the sources under pub/.
        `tenant ${SECRETS.tenant} nova:read:ds-auth/pub%2F* nova:create:ds-auth/pub%2F* nova:*:ds-auth/mine%2F*`,
      ]),
    ]);
    gw = await inProcessGateway([star.address], { ds: DS });
    for (const who of ["ops", "tenant"] as const) {
      const res = await fetch(`${gw.base}/v1/tokens`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ key_id: who, secret: SECRETS[who], bucket: DS.bucket }),
      });
      assert.equal(res.status, 200, await res.clone().text());
      tokens[who] = ((await res.json()) as { token: string }).token;
    }
  });
  after(async () => {
    await gw?.close();
    star?.client.close();
    await star?.proc.kill("SIGTERM");
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test("a tenant deletes its fork of a retired source without reading the whole bucket", async () => {
    const put = await fetch(url("pub/src"), {
      method: "PUT",
      headers: as("ops", { "content-type": "text/plain" }),
      body: "hello",
    });
    assert.equal(put.status, 201, await put.text());
    const fork = await fetch(url("mine/fork"), {
      method: "PUT",
      headers: as("tenant", {
        "content-type": "text/plain",
        "stream-forked-from": "/ds/v1/stream/pub/src",
      }),
    });
    assert.equal(fork.status, 201, await fork.text());
    // The source is deleted while the fork lives: retired, not gone.
    assert.equal(
      (await fetch(url("pub/src"), { method: "DELETE", headers: as("ops") })).status,
      204,
    );
    assert.equal((await fetch(`${url("pub/src")}?offset=-1`, { headers: as("ops") })).status, 410);
    // The tenant may not list the bucket to see whether the source has other forks: its fork
    // is deleted all the same, and the source stays retired for a token that may.
    const gone = await fetch(url("mine/fork"), { method: "DELETE", headers: as("tenant") });
    assert.equal(gone.status, 204, await gone.text());
    assert.equal(
      (await fetch(`${url("mine/fork")}?offset=-1`, { headers: as("tenant") })).status,
      404,
    );
    assert.equal((await fetch(`${url("pub/src")}?offset=-1`, { headers: as("ops") })).status, 410);
  });
});
