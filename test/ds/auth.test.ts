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
const SECRETS = {
  ops: "ops-secret-4c1e",
  tenant: "tenant-secret-9a07",
  reader: "reader-secret-51d2",
};

describe("the Durable Streams face with auth", () => {
  let star: StarProcess | undefined;
  let gw: Gateway | undefined;
  let dir: string | undefined;
  const tokens = { ops: "", tenant: "", reader: "" };
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
        // Reads the sources under pub/ but may not mark them: no forks of them.
        `reader ${SECRETS.reader} nova:read:ds-auth/pub%2F* nova:*:ds-auth/reads%2F*`,
      ]),
    ]);
    gw = await inProcessGateway([star.address], { ds: DS });
    for (const who of ["ops", "tenant", "reader"] as const) {
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

  test("a fork needs create on its source every time, not only the first", async () => {
    const text = { "content-type": "text/plain" };
    const put = await fetch(url("pub/twice"), {
      method: "PUT",
      headers: as("ops", text),
      body: "x",
    });
    assert.equal(put.status, 201, await put.text());
    const forkOf = (who: "ops" | "reader", path: string) =>
      fetch(url(path), {
        method: "PUT",
        headers: as(who, { ...text, "stream-forked-from": "/ds/v1/stream/pub/twice" }),
      });
    assert.equal((await forkOf("ops", "pub/twice-fork")).status, 201);
    const refused = await forkOf("reader", "reads/fork");
    assert.equal(refused.status, 403, await refused.clone().text());
    assert.match(((await refused.json()) as { message: string }).message, /create on stream/);
    // Nothing of the refused fork is left.
    assert.equal(
      (await fetch(url("reads/fork"), { method: "HEAD", headers: as("reader") })).status,
      404,
    );
  });

  test("a tenant deletes its own source with a fork: retired, as it may not list the bucket", async () => {
    const text = { "content-type": "text/plain" };
    const put = await fetch(url("mine/src"), {
      method: "PUT",
      headers: as("tenant", text),
      body: "hi",
    });
    assert.equal(put.status, 201, await put.text());
    const fork = await fetch(url("mine/src-fork"), {
      method: "PUT",
      headers: as("tenant", { ...text, "stream-forked-from": "/ds/v1/stream/mine/src" }),
    });
    assert.equal(fork.status, 201, await fork.text());
    const deleted = await fetch(url("mine/src"), { method: "DELETE", headers: as("tenant") });
    assert.equal(deleted.status, 204, await deleted.text());
    assert.equal(
      (await fetch(`${url("mine/src")}?offset=-1`, { headers: as("tenant") })).status,
      410,
    );
    const kept = await fetch(`${url("mine/src-fork")}?offset=-1`, { headers: as("tenant") });
    assert.equal(await kept.text(), "hi");
  });

  test("a stream a tenant retired with no fork left is deleted by a caller that may look", async () => {
    const text = { "content-type": "text/plain" };
    const forked = { ...text, "stream-forked-from": "/ds/v1/stream/mine/b" };
    /** A request's status, as `who`. */
    const status = async (method: string, path: string, who: "ops" | "tenant", headers = {}) =>
      (await fetch(url(path), { method, headers: as(who, headers) })).status;
    assert.equal(await status("PUT", "mine/b", "tenant", text), 201);
    assert.equal(await status("PUT", "mine/b-fork", "tenant", forked), 201);
    assert.equal(await status("DELETE", "mine/b-fork", "tenant"), 204);
    // The tenant cannot tell that no fork is left: its delete retires the source.
    assert.equal(await status("DELETE", "mine/b", "tenant"), 204);
    assert.equal(await status("DELETE", "mine/b", "tenant"), 410);
    assert.equal(await status("PUT", "mine/b", "tenant", text), 409);
    // One that may list the bucket finds none, and deletes it: the path is free again.
    assert.equal(await status("DELETE", "mine/b", "ops"), 204);
    assert.equal(await status("PUT", "mine/b", "tenant", text), 201);
  });
});
