// Shared subscriptions in front of a star with a signing key: a hub another client opened never
// serves a reader on trust. Each reader is authorized with its own token before it reads what the
// hub holds, and ended when its own token expires, while the others go on.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { request } from "undici";
import { type GatewayProcess, gatewayProcess } from "../harness/gateway-process.ts";
import { metric } from "../harness/metrics.ts";
import { type StarProcess, startStarProcess, withApiKeys } from "../harness/star-process.ts";
import { tempDir } from "../harness/tmp.ts";
import { waitFor } from "../harness/wait.ts";
import { closeSseAgent, openSse, readUntil, recordsOf } from "./sse-client.ts";

const SECRETS = { ops: "ops-secret-2b7e11", app: "app-secret-9c44d0", writer: "wr-secret-0a6f3e" };

let star: StarProcess;
let gw: GatewayProcess;
const cleanups: (() => Promise<void>)[] = [];

before(async () => {
  const dir = await tempDir({ after: (fn) => void cleanups.push(fn) });
  star = await startStarProcess([
    "--data-dir",
    dir,
    ...withApiKeys(
      `ops ${SECRETS.ops} nova:*:*,app ${SECRETS.app} nova:read:*,writer ${SECRETS.writer} nova:append:*`,
    ),
  ]);
  gw = await gatewayProcess([star.address], ["--hub-linger-ms", "50"]);
});

after(async () => {
  await gw?.close();
  star?.client.close();
  await star?.proc.kill("SIGTERM");
  for (const fn of cleanups) await fn();
  await closeSseAgent();
});

async function call(method: "GET" | "POST", path: string, token: string, body?: unknown) {
  const res = await request(gw.base + path, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  return { status: res.statusCode, json: text ? JSON.parse(text) : undefined, text };
}

async function token(keyId: keyof typeof SECRETS, extra: Record<string, unknown>) {
  const res = await request(`${gw.base}/v1/tokens`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ key_id: keyId, secret: SECRETS[keyId], ...extra }),
  });
  const json = (await res.body.json()) as { token: string };
  assert.equal(res.statusCode, 200);
  return json.token;
}

let streams = 0;
async function newStream(ops: string): Promise<string> {
  const name = `hub-auth-${++streams}`;
  assert.equal((await call("POST", "/v1/buckets", ops, { name })).status, 201);
  assert.equal((await call("POST", `/v1/buckets/${name}/streams`, ops, { key: "s" })).status, 201);
  return `/v1/buckets/${name}/streams/s/records`;
}

test("a client without read scope gets 403 and nothing from a hub others are reading", async () => {
  const ops = await token("ops", { scope: "nova:*:*" });
  const records = await newStream(ops);
  const reader = await token("app", { scope: "nova:read:*" });
  const writer = await token("writer", { scope: "nova:append:*" });
  const sse = await openSse(`${gw.base}${records}?seq_num=0`, {
    authorization: `Bearer ${reader}`,
  });
  try {
    assert.equal(
      (await call("POST", records, writer, { records: [{ body: "secret" }] })).status,
      200,
    );
    assert.deepEqual(recordsOf(await readUntil(sse.events, (e) => recordsOf(e).length === 1)), [
      [0, "secret"],
    ]);
    assert.equal(await metric(gw.base, "nova_gateway_hubs"), 1);
    // The hub holds record 0; the writer's token cannot read it, by SSE or by long-poll.
    for (const query of ["?seq_num=0", "", "?seq_num=0&wait=5"]) {
      const res = await request(`${gw.base}${records}${query}`, {
        headers: {
          authorization: `Bearer ${writer}`,
          ...(query.includes("wait") ? {} : { accept: "text/event-stream" }),
        },
      });
      const text = await res.body.text();
      assert.equal(res.statusCode, 403, text);
      assert.equal(JSON.parse(text).code, "permission_denied");
      assert.ok(!text.includes("secret"));
    }
    const none = await request(`${gw.base}${records}?seq_num=0`, {
      headers: { accept: "text/event-stream" },
    });
    assert.equal(none.statusCode, 401, await none.body.text());
  } finally {
    sse.close();
  }
});

test("a reader whose token expires is ended; the hub goes on for the others on their tokens", async () => {
  const ops = await token("ops", { scope: "nova:*:*" });
  const records = await newStream(ops);
  const short = await token("app", { scope: "nova:read:*", ttl_seconds: 3 });
  const long = await token("app", { scope: "nova:read:*", ttl_seconds: 600 });
  // The short-lived reader comes first, so the hub's own Subscribe runs on its token.
  const first = await openSse(`${gw.base}${records}`, { authorization: `Bearer ${short}` });
  const second = await openSse(`${gw.base}${records}`, { authorization: `Bearer ${long}` });
  try {
    await waitFor(async () => (await metric(gw.base, "nova_gateway_hub_subscribers")) === 2, {
      message: "both readers on the hub",
    });
    assert.equal((await call("POST", records, ops, { records: [{ body: "a" }] })).status, 200);
    assert.deepEqual(recordsOf(await readUntil(first.events, (e) => recordsOf(e).length === 1)), [
      [0, "a"],
    ]);
    assert.deepEqual(recordsOf(await readUntil(second.events, (e) => recordsOf(e).length === 1)), [
      [0, "a"],
    ]);
    const end = await readUntil(first.events, (e) => e.some((x) => x.event === "error"));
    const error = JSON.parse(end.find((x) => x.event === "error")?.data ?? "{}");
    assert.equal(error.code, "unauthenticated");
    assert.equal(error.last_event_id, "0,1,1");
    assert.equal((await call("POST", records, ops, { records: [{ body: "b" }] })).status, 200);
    assert.deepEqual(recordsOf(await readUntil(second.events, (e) => recordsOf(e).length === 1)), [
      [1, "b"],
    ]);
    assert.equal(await metric(gw.base, "nova_gateway_upstream_subscribe_calls"), 1);
  } finally {
    first.close();
    second.close();
  }
});
