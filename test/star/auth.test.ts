// Auth on a real star process over a real s3rver: ExchangeToken, bearer tokens on every verb,
// scope narrowing, expiry (also of live Subscribe and AppendSession calls), and a star without
// a signing key, where auth is off and ExchangeToken is UNIMPLEMENTED.
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import * as grpc from "@grpc/grpc-js";
import type { RequestOf, ResponseOf, UnaryMethod } from "../../src/contract/proto/index.ts";
import { nova } from "../../src/contract/proto/index.ts";
import type { DataPlaneServiceClient } from "../../src/gen/nova/v1/DataPlaneService.ts";
import type { ExchangeTokenRequest } from "../../src/gen/nova/v1/ExchangeTokenRequest.ts";
import { type RunningS3rver, startS3rver } from "../../src/platform/objstore/index.ts";
import { parseScope } from "../../src/star/auth/scope.ts";
import { issueToken } from "../../src/star/auth/tokens.ts";
import { dataPlaneClient, settleStar, starStats } from "../harness/grpc.ts";
import { nodeArgs, startProcess } from "../harness/process.ts";
import { type StarProcess, startStarProcess } from "../harness/star-process.ts";
import { tempDir } from "../harness/tmp.ts";
import { waitFor } from "../harness/wait.ts";

const SIGNING_KEY = "auth test signing key, thirty-two bytes or more";
const API_KEYS = [
  "ops ops-secret nova:*:*",
  "reader reader-secret nova:read:*",
  "writer writer-secret nova:read:* nova:append:* nova:create:*",
  "node node-secret nova:node",
];
/** Given in --api-keys-file, so the file path is exercised too. */
const FILE_KEYS = "# keys for the prefix tests\nlogs logs-secret nova:*:auth-pre/in%2F*\n";

let s3: RunningS3rver;
let star: StarProcess;
let plain: StarProcess;
let admin: grpc.Client;
const cleanups: (() => Promise<void>)[] = [];

before(async () => {
  const dir = await tempDir({ after: (fn) => void cleanups.push(fn) });
  s3 = await startS3rver({ port: 0, dataDir: join(dir, "s3"), buckets: ["nova"] });
  const keysFile = join(dir, "api-keys");
  await writeFile(keysFile, FILE_KEYS);
  star = await startStarProcess([
    "--s3-endpoint",
    s3.url,
    "--s3-bucket",
    "nova",
    "--signing-key",
    SIGNING_KEY,
    "--api-keys",
    API_KEYS.join(","),
    "--api-keys-file",
    keysFile,
  ]);
  plain = await startStarProcess(["--data-dir", join(dir, "plain")]);
  admin = new nova.AdminPlaneService(star.address, grpc.credentials.createInsecure());
});

after(async () => {
  admin?.close();
  for (const s of [star, plain]) {
    s?.client.close();
    await s?.proc.kill("SIGTERM");
  }
  await s3?.close();
  for (const fn of cleanups) await fn();
});

const bearer = (token: string | undefined) => {
  const md = new grpc.Metadata();
  if (token !== undefined) md.set("authorization", `Bearer ${token}`);
  return md;
};

/** A unary call with the token (none: no authorization metadata). */
function callAs<M extends UnaryMethod>(
  token: string | undefined,
  method: M,
  request: RequestOf<M>,
  client: DataPlaneServiceClient = star.client,
): Promise<ResponseOf<M>> {
  return new Promise((resolve, reject) => {
    const fn = (
      (client as unknown as Record<string, unknown>)[method] as (...args: unknown[]) => unknown
    ).bind(client);
    fn(request, bearer(token), {}, (err: grpc.ServiceError | null, res: unknown) =>
      err ? reject(err) : resolve(res as ResponseOf<M>),
    );
  });
}

/** AdminPlaneService Health with the token (none: no authorization metadata). */
function health(client: grpc.Client, token?: string): Promise<{ ready: boolean }> {
  return new Promise((resolve, reject) =>
    (
      client as unknown as {
        Health: (
          r: object,
          md: grpc.Metadata,
          cb: (e: unknown, r: { ready: boolean }) => void,
        ) => void;
      }
    ).Health({}, bearer(token), (e, r) => (e ? reject(e) : resolve(r))),
  );
}

async function exchange(request: ExchangeTokenRequest): Promise<string> {
  const res = await callAs(undefined, "ExchangeToken", request);
  assert.match(res.token, /^[\w-]+\.[\w-]+\.[\w-]+$/);
  return res.token;
}

const refused = (code: grpc.status, details: RegExp) => (err: unknown) => {
  const e = err as grpc.ServiceError;
  assert.equal(e.code, code, `${grpc.status[e.code]}: ${e.details}`);
  assert.match(e.details, details);
  return true;
};

/** Resolves with how a call ended: its error, or null on a clean end. */
function ending(
  call: grpc.ClientReadableStream<unknown> | grpc.ClientDuplexStream<unknown, unknown>,
) {
  const frames: unknown[] = [];
  const ended = new Promise<grpc.ServiceError | null>((resolve) => {
    call.on("data", (m: unknown) => frames.push(m));
    call.on("error", (e: grpc.ServiceError) => resolve(e));
    call.on("end", () => resolve(null));
  });
  return { frames, ended };
}

const rec = (body: string) => ({ records: [{ body: Buffer.from(body) }] });
let ops: string;

describe("a star with a signing key", () => {
  before(async () => {
    ops = await exchange({ key_id: "ops", secret: "ops-secret", scope: "nova:*:*" });
    for (const name of ["auth-a", "auth-b", "auth-pre"]) {
      await callAs(ops, "CreateBucket", { name });
      await callAs(ops, "CreateStream", { bucket: name, key: "s" });
    }
  });

  test("a bucket-narrowed token works on its bucket and is PERMISSION_DENIED on another", async () => {
    const token = await exchange({ key_id: "writer", secret: "writer-secret", bucket: "auth-a" });
    const ack = await callAs(token, "Append", { bucket: "auth-a", key: "s", ...rec("hello") });
    const read = await callAs(token, "Read", {
      bucket: "auth-a",
      key: "s",
      seq_num: ack.start?.seq_num ?? "0",
    });
    assert.equal(read.records[0]?.body.toString(), "hello");
    await assert.rejects(
      callAs(token, "Append", { bucket: "auth-b", key: "s", ...rec("x") }),
      refused(
        grpc.status.PERMISSION_DENIED,
        /does not allow append on stream "s" in bucket "auth-b"/,
      ),
    );
    await assert.rejects(
      callAs(token, "Read", { bucket: "auth-b", key: "s", seq_num: "0" }),
      refused(grpc.status.PERMISSION_DENIED, /does not allow read/),
    );
    // The key may not create buckets; narrowing to a bucket does not add the right.
    await assert.rejects(
      callAs(token, "DeleteBucket", { name: "auth-a" }),
      refused(grpc.status.PERMISSION_DENIED, /does not allow admin on bucket "auth-a"/),
    );
  });

  test("ListBuckets answers only the buckets the token may read", async () => {
    const narrowed = await exchange({
      key_id: "reader",
      secret: "reader-secret",
      bucket: "auth-b",
    });
    const listed = await callAs(narrowed, "ListBuckets", { prefix: "auth-" });
    assert.deepEqual(
      listed.buckets.map((b) => b.name),
      ["auth-b"],
    );
    const all = await callAs(ops, "ListBuckets", { prefix: "auth-" });
    assert.deepEqual(
      all.buckets.map((b) => b.name),
      ["auth-a", "auth-b", "auth-pre"],
    );
    // Paging a page at a time: the pages and their cursors name only what the token reads.
    const first = await callAs(narrowed, "ListBuckets", { prefix: "auth-", limit: 1 });
    assert.deepEqual(
      first.buckets.map((b) => b.name),
      ["auth-b"],
    );
    assert.ok(["", "auth-b"].includes(first.next), first.next);
    if (first.next !== "") {
      const rest = await callAs(narrowed, "ListBuckets", {
        prefix: "auth-",
        limit: 1,
        start_after: first.next,
      });
      assert.deepEqual(rest, { buckets: [], next: "" });
    }
    const streamsOnly = await exchange({
      key_id: "logs",
      secret: "logs-secret",
      bucket: "auth-pre",
    });
    await assert.rejects(
      callAs(streamsOnly, "ListBuckets", {}),
      refused(grpc.status.PERMISSION_DENIED, /does not allow read on any whole bucket/),
    );
  });

  test("a read-only token is refused on Append and at an AppendSession's open frame", async () => {
    const token = await exchange({ key_id: "reader", secret: "reader-secret", bucket: "auth-a" });
    await callAs(token, "CheckTail", { bucket: "auth-a", key: "s" });
    await assert.rejects(
      callAs(token, "Append", { bucket: "auth-a", key: "s", ...rec("x") }),
      refused(grpc.status.PERMISSION_DENIED, /does not allow append/),
    );
    const session = star.client.AppendSession(bearer(token));
    const { frames, ended } = ending(session);
    session.write({ open: { bucket: "auth-a", key: "s" } });
    assert.ok(await ended.then(refused(grpc.status.PERMISSION_DENIED, /does not allow append/)));
    assert.deepEqual(frames, []);
  });

  test("a batch with a trim command record needs trim as well as append, unary and in a session", async () => {
    const s = { bucket: "auth-a", key: "trim-cmd" };
    await callAs(ops, "CreateStream", s);
    await callAs(ops, "Append", {
      ...s,
      records: ["0", "1", "2"].map((b) => ({ body: Buffer.from(b) })),
    });
    const trimTo = Buffer.alloc(8);
    trimTo.writeBigUInt64BE(2n);
    const trim = { headers: [{ name: Buffer.alloc(0), value: Buffer.from("trim") }], body: trimTo };
    const appendOnly = await exchange({
      key_id: "ops",
      secret: "ops-secret",
      scope: "nova:read:auth-a nova:append:auth-a",
    });
    await assert.rejects(
      callAs(appendOnly, "Append", { ...s, records: [trim] }),
      refused(grpc.status.PERMISSION_DENIED, /does not allow trim on stream "trim-cmd"/),
    );
    const session = star.client.AppendSession(bearer(appendOnly));
    const { frames, ended } = ending(session);
    session.write({ open: s });
    session.write({ batch: { records: [trim] } });
    assert.ok(await ended.then(refused(grpc.status.PERMISSION_DENIED, /does not allow trim/)));
    assert.equal(frames.length, 1, "the opened frame, and no ack");
    // Nothing was trimmed or appended.
    const kept = await callAs(ops, "Read", { ...s, seq_num: "0" });
    assert.deepEqual(
      kept.records.map((r) => r.seq_num),
      ["0", "1", "2"],
    );
    const withTrim = await exchange({
      key_id: "ops",
      secret: "ops-secret",
      scope: "nova:read:auth-a nova:append:auth-a nova:trim:auth-a",
    });
    await callAs(withTrim, "Append", { ...s, records: [trim] });
    const trimmed = await callAs(ops, "Read", { ...s, seq_num: "0" });
    assert.equal(trimmed.records[0]?.seq_num, "2");
  });

  test("a key prefix scope covers the streams under it and nothing else", async () => {
    const token = await exchange({ key_id: "logs", secret: "logs-secret", bucket: "auth-pre" });
    await callAs(token, "CreateStream", { bucket: "auth-pre", key: "in/1" });
    await callAs(token, "Append", { bucket: "auth-pre", key: "in/1", ...rec("x") });
    await callAs(token, "ListStreams", { bucket: "auth-pre", prefix: "in/" });
    await assert.rejects(
      callAs(token, "Append", { bucket: "auth-pre", key: "s", ...rec("x") }),
      refused(grpc.status.PERMISSION_DENIED, /append on stream "s"/),
    );
    await assert.rejects(
      callAs(token, "ListStreams", { bucket: "auth-pre", prefix: "" }),
      refused(grpc.status.PERMISSION_DENIED, /read on the streams of bucket "auth-pre"/),
    );
    await assert.rejects(
      callAs(token, "GetBucket", { name: "auth-pre" }),
      refused(grpc.status.PERMISSION_DENIED, /read on bucket "auth-pre"/),
    );
  });

  test("each verb needs its action: refused without it, admitted with it alone", async () => {
    const s = { bucket: "auth-a", key: "verbs" };
    const verbs: [UnaryMethod, string, object][] = [
      ["CreateStream", "create", s],
      ["GetStream", "read", s],
      ["ReconfigureStream", "create", { ...s, config: {} }],
      ["Append", "append", { ...s, ...rec("v") }],
      ["Read", "read", { ...s, seq_num: "0" }],
      ["CheckTail", "read", s],
      ["ReadPlan", "read", { ...s, seq_num: "0" }],
      ["Fence", "append", { ...s, fencing_token: "" }],
      ["Trim", "trim", { ...s, seq_num: "0" }],
      ["ListStreams", "read", { bucket: "auth-a" }],
      ["DeleteStream", "create", s],
      ["CreateBucket", "admin", { name: "auth-c" }],
      ["GetBucket", "read", { name: "auth-c" }],
      ["ListBuckets", "read", {}],
      ["ReconfigureBucket", "admin", { name: "auth-c", config: {} }],
      ["DeleteBucket", "admin", { name: "auth-c" }],
    ];
    const actions = ["read", "append", "create", "trim", "admin"];
    for (const [verb, action, request] of verbs) {
      const others = actions.filter((a) => a !== action).map((a) => `nova:${a}`);
      const without = await exchange({
        key_id: "ops",
        secret: "ops-secret",
        scope: others.join(" "),
      });
      await assert.rejects(
        callAs(without, verb, request as never),
        refused(grpc.status.PERMISSION_DENIED, new RegExp(`does not allow ${action}`)),
        verb,
      );
      const only = await exchange({ key_id: "ops", secret: "ops-secret", scope: `nova:${action}` });
      // Admitted: whatever the verb answers, it is not an auth refusal.
      await callAs(only, verb, request as never).catch((err: grpc.ServiceError) => {
        assert.ok(
          ![grpc.status.UNAUTHENTICATED, grpc.status.PERMISSION_DENIED].includes(err.code),
          `${verb} with nova:${action}: ${err.details}`,
        );
      });
    }
  });

  test("no token, a tampered token, or another key's token: UNAUTHENTICATED", async () => {
    const token = await exchange({ key_id: "writer", secret: "writer-secret", bucket: "auth-a" });
    const read = { bucket: "auth-a", key: "s", seq_num: "0" };
    await assert.rejects(
      callAs(undefined, "Read", read),
      refused(grpc.status.UNAUTHENTICATED, /needs a token: send authorization: Bearer <token>/),
    );
    const [header, payload, signature] = token.split(".") as [string, string, string];
    const flip = (s: string, i: number) =>
      s.slice(0, i) + (s[i] === "A" ? "B" : "A") + s.slice(i + 1);
    for (const tampered of [
      `${header}.${payload}.${flip(signature, 5)}`,
      `${header}.${flip(payload, 10)}.${signature}`,
      `${flip(header, 3)}.${payload}.${signature}`,
      `${header}.${Buffer.from('{"sub":"ops","scope":"nova:*:*","exp":9e9}').toString("base64url")}.${signature}`,
    ]) {
      await assert.rejects(
        callAs(tampered, "Read", read),
        refused(grpc.status.UNAUTHENTICATED, /./),
      );
    }
    const forged = issueToken(Buffer.from("another key, also thirty-two bytes long"), {
      keyId: "ops",
      scope: parseScope("nova:*:*"),
      nowMs: Date.now(),
      ttlSeconds: 60,
    });
    await assert.rejects(
      callAs(forged.token, "Read", read),
      refused(grpc.status.UNAUTHENTICATED, /signature does not verify/),
    );
    const sub = star.client.Subscribe({ ...read }, bearer(undefined));
    assert.ok(await ending(sub).ended.then(refused(grpc.status.UNAUTHENTICATED, /needs a token/)));
    const session = star.client.AppendSession(bearer("not-a-token"));
    assert.ok(await ending(session).ended.then(refused(grpc.status.UNAUTHENTICATED, /not a JWT/)));
  });

  test("ExchangeToken: a bad secret or an unknown key is UNAUTHENTICATED; more than the key has is PERMISSION_DENIED", async () => {
    for (const request of [
      { key_id: "writer", secret: "wrong", bucket: "auth-a" },
      { key_id: "nobody", secret: "writer-secret", bucket: "auth-a" },
    ]) {
      await assert.rejects(
        callAs(undefined, "ExchangeToken", request),
        refused(grpc.status.UNAUTHENTICATED, /^unknown api key or wrong secret$/),
      );
    }
    await assert.rejects(
      callAs(undefined, "ExchangeToken", {
        key_id: "reader",
        secret: "reader-secret",
        scope: "nova:append:auth-a",
      }),
      refused(grpc.status.PERMISSION_DENIED, /not within api key reader's grants/),
    );
    await assert.rejects(
      callAs(undefined, "ExchangeToken", { key_id: "reader", secret: "reader-secret" }),
      refused(grpc.status.INVALID_ARGUMENT, /exactly one of bucket or scope/),
    );
    await assert.rejects(
      callAs(undefined, "ExchangeToken", {
        key_id: "reader",
        secret: "reader-secret",
        scope: "read",
      }),
      refused(grpc.status.INVALID_ARGUMENT, /scope: "read" is not a grant/),
    );
  });

  test("ttl_seconds: 0 is 15 minutes, over an hour is an hour", async () => {
    for (const [ttl, seconds] of [
      [0, 900],
      [1, 1],
      [120, 120],
      [86_400, 3600],
    ] as const) {
      const before = Date.now();
      const res = await callAs(undefined, "ExchangeToken", {
        key_id: "reader",
        secret: "reader-secret",
        bucket: "auth-a",
        ttl_seconds: ttl,
      });
      const expires = Number(res.expires_at_unix_ms);
      assert.ok(
        expires >= before + seconds * 1000 && expires <= Date.now() + seconds * 1000,
        `ttl ${ttl}`,
      );
    }
  });

  test("an expired token is UNAUTHENTICATED", async () => {
    const past = issueToken(Buffer.from(SIGNING_KEY), {
      keyId: "ops",
      scope: parseScope("nova:*:*"),
      nowMs: Date.now() - 120_000,
      ttlSeconds: 60,
    });
    await assert.rejects(
      callAs(past.token, "GetBucket", { name: "auth-a" }),
      refused(grpc.status.UNAUTHENTICATED, /expired/),
    );
    // A token exchanged with ttl_seconds 1 stops working within a few seconds.
    const short = await exchange({
      key_id: "reader",
      secret: "reader-secret",
      bucket: "auth-a",
      ttl_seconds: 1,
    });
    const err = await waitFor(
      () =>
        callAs(short, "GetBucket", { name: "auth-a" }).then(
          () => false,
          (e: grpc.ServiceError) => e,
        ),
      { timeoutMs: 10_000, message: "the 1-second token to expire" },
    );
    refused(grpc.status.UNAUTHENTICATED, /expired/)(err);
  });

  test("a Subscribe and an AppendSession end with UNAUTHENTICATED when their token expires", async () => {
    const soon = issueToken(Buffer.from(SIGNING_KEY), {
      keyId: "ops",
      scope: parseScope("nova:read:auth-b nova:append:auth-b"),
      nowMs: Date.now(),
      ttlSeconds: 3,
    });
    const sub = star.client.Subscribe(
      { bucket: "auth-b", key: "s", seq_num: "0" },
      bearer(soon.token),
    );
    const subscribed = ending(sub);
    const session = star.client.AppendSession(bearer(soon.token));
    const appending = ending(session);
    session.write({ open: { bucket: "auth-b", key: "s" } });
    await waitFor(() => subscribed.frames.length > 0 && appending.frames.length > 0, {
      message: "the subscription's first batch and the session's opened frame",
    });
    for (const { ended } of [subscribed, appending]) {
      const err = await ended;
      assert.ok(err, "the call ended with an error");
      refused(grpc.status.UNAUTHENTICATED, /token has expired/)(err);
    }
    // Both released what they held: the star still serves the stream.
    await callAs(ops, "Append", { bucket: "auth-b", key: "s", ...rec("after") });
  });

  test("the admin plane needs nova:admin on every bucket: Health too", async () => {
    await assert.rejects(health(admin), refused(grpc.status.UNAUTHENTICATED, /token/));
    const bucketAdmin = await exchange({
      key_id: "writer",
      secret: "writer-secret",
      bucket: "auth-a",
    });
    await assert.rejects(
      health(admin, bucketAdmin),
      refused(grpc.status.PERMISSION_DENIED, /does not allow admin on this star's admin plane/),
    );
    assert.equal((await health(admin, ops)).ready, true);
  });

  test("a ReadPlan and its presigned URLs expire with the token that asked, at the latest", async () => {
    await callAs(ops, "CreateStream", { bucket: "auth-a", key: "planned" });
    await callAs(ops, "Append", { bucket: "auth-a", key: "planned", ...rec("settled") });
    await settleStar(star.address, bearer(ops));
    const plan = async (ttl: number) => {
      const token = await exchange({
        key_id: "reader",
        secret: "reader-secret",
        bucket: "auth-a",
        ttl_seconds: ttl,
      });
      const before = Date.now();
      const res = await callAs(token, "ReadPlan", {
        bucket: "auth-a",
        key: "planned",
        seq_num: "0",
      });
      const url = new URL(res.entries[0]?.url as string);
      return {
        expiresIn: Number(res.expires_at_unix_ms) - before,
        urlSeconds: Number(url.searchParams.get("X-Amz-Expires")),
        fetched: (await fetch(url)).status,
      };
    };
    const short = await plan(120);
    assert.ok(short.expiresIn <= 120_000, `the plan expires with the token (${short.expiresIn})`);
    assert.ok(short.urlSeconds > 0 && short.urlSeconds <= 120, `URL for ${short.urlSeconds} s`);
    assert.equal(short.fetched, 200);
    // A token that outlives --readplan-ttl-seconds (900) gets the star's full lifetime.
    const long = await plan(3600);
    assert.ok(long.expiresIn > 120_000 && long.expiresIn <= 900_000, `${long.expiresIn}`);
    assert.equal(long.urlSeconds, 900);
    assert.equal(long.fetched, 200);
  });

  test("SettleStar accepts nova:admin or nova:node (seed 004); nova:node opens nothing else", async () => {
    const node = await exchange({ key_id: "node", secret: "node-secret", scope: "nova:node" });
    const writer = await exchange({ key_id: "writer", secret: "writer-secret", bucket: "auth-a" });
    await assert.rejects(settleStar(star.address), refused(grpc.status.UNAUTHENTICATED, /token/));
    await assert.rejects(
      settleStar(star.address, bearer(writer)),
      refused(grpc.status.PERMISSION_DENIED, /neither admin nor node/),
    );
    await callAs(ops, "Append", { bucket: "auth-a", key: "s", ...rec("to settle") });
    const settled = await settleStar(star.address, bearer(node));
    assert.ok(settled.streams.some((s) => s.bucket === "auth-a" && s.key === "s"));
    await settleStar(star.address, bearer(ops));
    await assert.rejects(health(admin, node), refused(grpc.status.PERMISSION_DENIED, /admin/));
    await assert.rejects(
      starStats(star.address, bearer(node)),
      refused(grpc.status.PERMISSION_DENIED, /admin/),
    );
    assert.equal((await starStats(star.address, bearer(ops))).unsettled_records, "0");
    await assert.rejects(
      callAs(node, "Read", { bucket: "auth-a", key: "s", seq_num: "0" }),
      refused(grpc.status.PERMISSION_DENIED, /read/),
    );
  });
});

describe("a star without a signing key", () => {
  test("answers Health without a token", async () => {
    const open = new nova.AdminPlaneService(plain.address, grpc.credentials.createInsecure());
    try {
      assert.equal((await health(open)).ready, true);
    } finally {
      open.close();
    }
  });

  test("serves every verb without a token; ExchangeToken is UNIMPLEMENTED", async () => {
    await callAs(undefined, "CreateBucket", { name: "open-a" }, plain.client);
    await callAs(undefined, "ListBuckets", {}, plain.client);
    await assert.rejects(
      callAs(
        undefined,
        "ExchangeToken",
        { key_id: "ops", secret: "ops-secret", bucket: "open-a" },
        plain.client,
      ),
      refused(grpc.status.UNIMPLEMENTED, /needs a signing key/),
    );
  });
});

describe("the star's auth flags", () => {
  test("the signing key and api keys may come from the environment", async (t) => {
    const dir = await tempDir(t);
    const [command, args] = nodeArgs("src/star/main.ts", [
      "--listen",
      "127.0.0.1:0",
      "--log-level",
      "warn",
      "--data-dir",
      dir,
    ]);
    const proc = await startProcess({
      command,
      args,
      readyLine: /listening on (\S+)/,
      env: { NOVA_SIGNING_KEY: SIGNING_KEY, NOVA_API_KEYS: "env env-secret nova:read:*" },
    });
    const client = dataPlaneClient(proc.match[1] as string);
    t.after(async () => {
      client.close();
      await proc.kill("SIGTERM");
    });
    const res = await callAs(
      undefined,
      "ExchangeToken",
      { key_id: "env", secret: "env-secret", scope: "nova:read" },
      client,
    );
    await callAs(res.token, "ListBuckets", {}, client);
    await assert.rejects(
      callAs(undefined, "ListBuckets", {}, client),
      refused(grpc.status.UNAUTHENTICATED, /needs a token/),
    );
  });

  test("a short signing key, or api keys without one, stop the star at start", async (t) => {
    const dir = await tempDir(t);
    for (const [flags, message] of [
      [["--signing-key", "too short"], /--signing-key must be at least 32 bytes/],
      [["--api-keys", "k1 s nova:read"], /api keys need --signing-key/],
      [
        ["--signing-key", SIGNING_KEY, "--api-keys", "k1 s nova:write"],
        /--api-keys entry 1 \(key k1\): "nova:write"/,
      ],
    ] as const) {
      const [command, args] = nodeArgs("src/star/main.ts", ["--data-dir", dir, ...flags]);
      await assert.rejects(
        startProcess({ command, args, readyLine: /listening on/ }),
        (err: Error) => {
          assert.match(err.message, /exited \(code 2/);
          assert.match(err.message, message);
          return true;
        },
      );
    }
  });
});
