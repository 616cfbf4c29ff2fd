// Auth through the gateway process (`src/main.ts --stars`) to a real star process with a signing
// key: POST /v1/tokens, the token in Authorization and in ?access_token= on GET reads, the 401 and
// 403 bodies, and that no token or secret ever reaches the gateway's logs (at debug level).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { request } from "undici";
import { type GatewayProcess, gatewayProcess } from "../harness/gateway-process.ts";
import { type StarProcess, startStarProcess, withApiKeys } from "../harness/star-process.ts";
import { tempDir } from "../harness/tmp.ts";

const SECRETS = { ops: "ops-secret-7f3a9c", app: "app-secret-51d0e2" };

let star: StarProcess;
let gw: GatewayProcess;
let base: string;
const cleanups: (() => Promise<void>)[] = [];
/** Every token this file was given: none may show up in the gateway's logs. */
const issued: string[] = [];

before(async () => {
  const dir = await tempDir({ after: (fn) => void cleanups.push(fn) });
  star = await startStarProcess([
    "--data-dir",
    dir,
    ...withApiKeys(`ops ${SECRETS.ops} nova:*:*,app ${SECRETS.app} nova:read:* nova:append:*`),
  ]);
  gw = await gatewayProcess([star.address], [], "debug");
  base = gw.base;
});

after(async () => {
  await gw?.close();
  star?.client.close();
  await star?.proc.kill("SIGTERM");
  for (const fn of cleanups) await fn();
});

async function http(
  method: "GET" | "POST",
  path: string,
  opts: { body?: unknown; token?: string; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token !== undefined) headers.authorization = `Bearer ${opts.token}`;
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  const res = await request(base + path, {
    method,
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  const text = await res.body.text();
  return {
    status: res.statusCode,
    headers: res.headers,
    text,
    json: text ? JSON.parse(text) : undefined,
  };
}

async function token(body: Record<string, unknown>): Promise<string> {
  const res = await http("POST", "/v1/tokens", { body });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.headers["cache-control"], "no-store");
  assert.equal(typeof res.json.expires_at_unix_ms, "number");
  issued.push(res.json.token);
  return res.json.token;
}

const records = "/v1/buckets/gwa-one/streams/s/records";

describe("the gateway in front of a star with a signing key", () => {
  let ops: string;
  let app: string;
  before(async () => {
    ops = await token({ key_id: "ops", secret: SECRETS.ops, scope: "nova:*:*" });
    for (const name of ["gwa-one", "gwa-two"]) {
      const bucket = await http("POST", "/v1/buckets", { token: ops, body: { name } });
      assert.equal(bucket.status, 201, bucket.text);
      const stream = await http("POST", `/v1/buckets/${name}/streams`, {
        token: ops,
        body: { key: "s" },
      });
      assert.equal(stream.status, 201, stream.text);
    }
    app = await token({ key_id: "app", secret: SECRETS.app, bucket: "gwa-one", ttl_seconds: 600 });
  });

  test("/readyz is 200 though the star guards its admin plane and the gateway holds no admin token", async () => {
    const res = await request(`${base}/readyz`);
    assert.equal(res.statusCode, 200, await res.body.text());
  });

  test("a token works in Authorization, and in ?access_token= on GET reads", async () => {
    const appended = await http("POST", records, {
      token: app,
      body: { records: [{ body: "hello" }] },
    });
    assert.equal(appended.status, 200, appended.text);
    const byHeader = await http("GET", `${records}?seq_num=0`, { token: app });
    assert.equal(byHeader.status, 200, byHeader.text);
    assert.equal(byHeader.json.records[0].body, "hello");
    const byQuery = await http("GET", `${records}?seq_num=0&access_token=${app}`);
    assert.equal(byQuery.status, 200, byQuery.text);
    assert.deepEqual(byQuery.json, byHeader.json);
    const tail = await http("GET", `${records}/tail?access_token=${app}`);
    assert.equal(tail.status, 200, tail.text);
    assert.equal(tail.json.tail.seq_num, 1);
  });

  test("no token, or a tampered one, is 401 unauthenticated", async () => {
    // One signature character changed, always to another one (a fixed suffix would leave a
    // token that already ends in it untouched, one time in a thousand).
    const at = app.lastIndexOf(".") + 5;
    const tampered = app.slice(0, at) + (app[at] === "A" ? "B" : "A") + app.slice(at + 1);
    assert.notEqual(tampered, app);
    for (const res of [
      await http("GET", `${records}?seq_num=0`),
      await http("GET", `${records}?seq_num=0`, { token: tampered }),
      await http("GET", `${records}?seq_num=0&access_token=not-a-token`),
      await http("GET", "/v1/buckets", { headers: { authorization: `Basic ${app}` } }),
    ]) {
      assert.equal(res.status, 401, res.text);
      assert.equal(res.json.code, "unauthenticated");
      assert.equal(res.json.retryable, false);
      assert.equal(typeof res.json.message, "string");
    }
  });

  test("a credential with characters no token has is 401, never quoted back or logged", async () => {
    const signature = app.split(".")[2] as string;
    for (const res of [
      await http("GET", `${records}?seq_num=0&access_token=${app}%0A`),
      await http("GET", `${records}?seq_num=0&access_token=${app}%C3%A9`),
      await http("GET", `${records}?seq_num=0`, {
        headers: { authorization: `Bearer ${app}\u00a0` },
      }),
    ]) {
      assert.equal(res.status, 401, res.text);
      assert.equal(res.json.code, "unauthenticated");
      assert.match(res.json.message, /characters no token has/);
      assert.ok(!res.text.includes(signature), "the token is not in the answer");
    }
  });

  test("a token outside its scope is 403 permission_denied", async () => {
    const other = await http("POST", "/v1/buckets/gwa-two/streams/s/records", {
      token: app,
      body: { records: [{ body: "x" }] },
    });
    assert.equal(other.status, 403, other.text);
    assert.equal(other.json.code, "permission_denied");
    assert.equal(other.json.retryable, false);
    assert.match(other.json.message, /append on stream "s" in bucket "gwa-two"/);
    const trim = await http("POST", `${records.replace("/records", "")}/trim`, {
      token: app,
      body: { seq_num: 0 },
    });
    assert.equal(trim.status, 403, trim.text);
    assert.equal(trim.json.code, "permission_denied");
    // ListBuckets answers only the token's bucket.
    const listed = await http("GET", "/v1/buckets?prefix=gwa-", { token: app });
    assert.deepEqual(
      listed.json.buckets.map((b: { name: string }) => b.name),
      ["gwa-one"],
    );
  });

  test("POST /v1/tokens refuses a bad secret (401), a scope beyond the key (403), bad input (400)", async () => {
    const cases: [Record<string, unknown>, number, string][] = [
      [{ key_id: "app", secret: "wrong", bucket: "gwa-one" }, 401, "unauthenticated"],
      [{ key_id: "nobody", secret: SECRETS.app, bucket: "gwa-one" }, 401, "unauthenticated"],
      [{ key_id: "app", secret: SECRETS.app, scope: "nova:admin" }, 403, "permission_denied"],
      [{ key_id: "app", secret: SECRETS.app, scope: "nova:write" }, 400, "invalid_argument"],
      [{ key_id: "app", secret: SECRETS.app }, 400, "invalid_argument"],
    ];
    for (const [body, status, code] of cases) {
      const res = await http("POST", "/v1/tokens", { body });
      assert.equal(res.status, status, `${JSON.stringify(body)}: ${res.text}`);
      assert.equal(res.json.code, code);
      assert.ok(!res.text.includes(SECRETS.app), "the secret is never echoed");
    }
  });

  test("a token in both Authorization and access_token, or an empty access_token, is 400", async () => {
    const both = await http("GET", `${records}?seq_num=0&access_token=${app}`, { token: app });
    assert.equal(both.status, 400, both.text);
    assert.equal(both.json.code, "bad_query");
    assert.match(both.json.message, /access_token/);
    const empty = await http("GET", `${records}?seq_num=0&access_token=`);
    assert.equal(empty.status, 400, empty.text);
    assert.equal(empty.json.code, "bad_query");
  });

  test("no token and no secret ever appears in the gateway's logs", async () => {
    // Stopping the gateway first means every line it logged has been read.
    const exit = await gw.proc.kill("SIGTERM");
    assert.equal(exit.code, 0);
    const logs = gw.proc.stderr();
    // The logs are there (every request, at debug level), with the token-bearing URLs in them.
    assert.match(logs, /incoming request/);
    assert.match(
      logs,
      /\/v1\/buckets\/gwa-one\/streams\/s\/records\?seq_num=0&access_token=\[redacted\]/,
    );
    assert.equal(issued.length, 2);
    for (const t of issued) {
      for (const part of [t, ...t.split(".").slice(1)]) {
        const leaked = logs.split("\n").filter((line) => line.includes(part));
        assert.deepEqual(leaked, [], "a token (or its payload or signature) is in the logs");
      }
    }
    for (const secret of Object.values(SECRETS)) {
      assert.ok(!logs.includes(secret), "a secret is in the logs");
    }
  });
});
