// A stopped leader's log, read by the member that serves its stream (two star processes with
// --fleet over one s3rver, gateways in front of both). The leader acked 14 records: 6 settled
// into chunks, 8 only in its log, one log object per append, and its stop left a torn newest
// object. With just that, a member's Read and Subscribe and the gateway's reads (unary, and SSE
// without a hub) serve every acked record. With a damaged object in the middle of the log (not
// among the newest), or one missing, each of them serves only records before it and then fails
// UNAVAILABLE (503 unavailable, retryable) naming it; StarStats counts it and the member logs
// it. The leader, started again on the damaged log, refuses its streams naming the object and
// keeps the log for repair.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type ServiceError, status } from "@grpc/grpc-js";
import { decodeLogObject, decodeLogVoid } from "../../src/contract/codec/index.ts";
import type { DataPlaneServiceClient } from "../../src/gen/nova/v1/DataPlaneService.ts";
import type { Record__Output } from "../../src/gen/nova/v1/Record.ts";
import type { SubscribeRequest } from "../../src/gen/nova/v1/SubscribeRequest.ts";
import type { SubscribeResponse__Output } from "../../src/gen/nova/v1/SubscribeResponse.ts";
import {
  createS3Store,
  type ObjectStore,
  type RunningS3rver,
  startS3rver,
} from "../../src/platform/objstore/index.ts";
import type { Member } from "../../src/star/fleet/members.ts";
import { logKey, logPrefix, parseLogKey } from "../../src/star/storage/keys.ts";
import { closeSseAgent, openSse, readUntil, recordsOf } from "../gateway/sse-client.ts";
import { fleetMembers, keyLedBy, startMember } from "../harness/fleet.ts";
import { type Gateway, inProcessGateway } from "../harness/gateway.ts";
import { call, refusal, settleStar, starStats } from "../harness/grpc.ts";
import { http } from "../harness/http.ts";
import { type StarProcess, s3Storage } from "../harness/star-process.ts";
import { waitFor } from "../harness/wait.ts";

const NAMES = ["s1", "s2"] as const;
type Name = (typeof NAMES)[number];
/** Nothing settles but by SettleStar; one log PUT in flight, so only the newest may be torn. */
const FLAGS = ["--settle-max-age-ms", "3600000", "--log-puts-in-flight", "1"];
const BUCKET = "wal";

let dir: string;
let s3: RunningS3rver;
let store: ObjectStore;
let members: Member[];
const stars = new Map<Name, StarProcess>();
let gw: Gateway;
/** A gateway whose SSE readers each subscribe on their own (no hub): the history, then Subscribe. */
let gwOwn: Gateway;
let key: string;
let path: string;
const acked: string[] = [];
/** The leader's log objects after its stop, oldest first: each holds one append of 2 records. */
let logKeys: string[];

const client = (name: Name): DataPlaneServiceClient => (stars.get(name) as StarProcess).client;
const address = (name: Name) => (members.find((m) => m.name === name) as Member).address;
const start = (name: Name) => startMember(s3Storage(s3.url), members, name, FLAGS);

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "nova-stopped-leader-"));
  s3 = await startS3rver({ port: 0, dataDir: dir, buckets: ["nova"] });
  store = createS3Store({ endpoint: s3.url, bucket: "nova" });
  members = await fleetMembers(NAMES);
  for (const name of NAMES) stars.set(name, await start(name));
  // The gateway knows both stars: reads of s1's streams move to s2 once s1 is gone.
  gw = await inProcessGateway(NAMES.map(address), { failoverMs: 1_000 });
  gwOwn = await inProcessGateway(NAMES.map(address), { failoverMs: 1_000, hubs: false });

  await call(client("s2"), "CreateBucket", { name: BUCKET });
  key = keyLedBy(members, BUCKET, "s1");
  path = `/v1/buckets/${BUCKET}/streams/${key}`;
  await call(client("s2"), "CreateStream", { bucket: BUCKET, key });
  for (let n = 0; n < 7; n++) {
    // The first three appends settle into chunks; the other four stay in the log.
    if (n === 3) await settleStar(address("s1"));
    const bodies = [`r${2 * n}`, `r${2 * n + 1}`];
    await call(client("s1"), "Append", {
      bucket: BUCKET,
      key,
      records: bodies.map((b) => ({ body: Buffer.from(b) })),
    });
    acked.push(...bodies);
  }
  await stop("s1");
  logKeys = await unsettledLogKeys();
  assert.equal(logKeys.length, 4, "one log object per unsettled append");
  // The stop cut a PUT short: the embedded store leaves an empty object. It was never acked.
  const newest = parseLogKey("s1", logKeys.at(-1) as string) as bigint;
  await store.put(logKey("s1", newest + 1n), new Uint8Array(0));
});

after(async () => {
  await gw?.close();
  await gwOwn?.close();
  await closeSseAgent();
  for (const name of [...stars.keys()]) await stop(name);
  store?.close();
  await s3?.close();
  await rm(dir, { recursive: true, force: true });
});

async function stop(name: Name): Promise<void> {
  const star = stars.get(name);
  stars.delete(name);
  star?.client.close();
  await star?.proc.kill("SIGKILL");
}

/** The member's Read, page by page (3 records a page) from 0: the bodies, and how it failed. */
async function memberRead(): Promise<{ bodies: string[]; tail?: string; error?: ServiceError }> {
  const bodies: string[] = [];
  for (;;) {
    try {
      const page = await call(client("s2"), "Read", {
        bucket: BUCKET,
        key,
        seq_num: String(bodies.length),
        count: 3,
      });
      if (page.records.length === 0) return { bodies, tail: page.tail?.seq_num };
      bodies.push(...page.records.map((r) => r.body.toString()));
    } catch (err) {
      return { bodies, error: err as ServiceError };
    }
  }
}

/** The member's Subscribe from 0 until it ends: the bodies, and its status. */
function memberSubscribe(): Promise<{ bodies: string[]; error: ServiceError }> {
  return new Promise((resolve, reject) => {
    const bodies: string[] = [];
    const request: SubscribeRequest = { bucket: BUCKET, key, seq_num: "0" };
    const sub = client("s2").Subscribe(request);
    sub.on("data", (m: SubscribeResponse__Output) => {
      bodies.push(...m.records.map((r: Record__Output) => r.body.toString()));
    });
    sub.on("error", (error: ServiceError) => resolve({ bodies, error }));
    sub.on("end", () => reject(new Error("a follower's Subscribe ended without a status")));
  });
}

/** The gateway's unary reads, 3 records a page from 0: the bodies, and the failing response. */
async function gatewayRead() {
  const bodies: string[] = [];
  for (;;) {
    const res = await http(gw.base, "GET", `${path}/records?seq_num=${bodies.length}&count=3`);
    if (res.status !== 200) return { bodies, failed: res };
    const page = res.json.records as { body: string }[];
    if (page.length === 0) return { bodies, tail: res.json.tail.seq_num as number };
    bodies.push(...page.map((r) => r.body));
  }
}

/** An SSE read of every acked record through `gateway`: its status, bodies, and how it ended. */
async function gatewaySse(gateway: Gateway) {
  const sse = await openSse(`${gateway.base}${path}/records?seq_num=0&count=${acked.length}`);
  try {
    if (sse.status !== 200) return { status: sse.status, body: JSON.parse(await sse.text()) };
    const events = await readUntil(sse.events, (seen) =>
      seen.some((e) => e.event === "done" || e.event === "error"),
    );
    const end = events.at(-1);
    const error = end?.event === "error" ? JSON.parse(end.data) : undefined;
    return { status: sse.status, bodies: recordsOf(events).map(([, body]) => body), end, error };
  } finally {
    sse.close();
  }
}

/**
 * A hub's SSE reader: the hub checks each reader's access with CheckTail, which only the
 * stream's leader answers, so with the leader stopped it fails at once, 503 and retryable.
 * Either way it never ends short in silence.
 */
async function assertHubSseLoud(): Promise<void> {
  const sse = await gatewaySse(gw);
  if (sse.status === 200) {
    assert.equal(sse.end?.event, "done", sse.end?.data);
    assert.deepEqual(sse.bodies, acked);
    return;
  }
  assert.equal(sse.status, 503);
  assert.equal(sse.body.code, "unavailable");
  assert.equal(sse.body.retryable, true);
}

const stats = async () => starStats(address("s2"));

/** An UNAVAILABLE status whose message matches `names` and says to retry. */
function assertRefusal(error: { code: number; details: string } | undefined, names: RegExp) {
  assert.equal(error?.code, status.UNAVAILABLE, error?.details);
  assert.match(error?.details ?? "", names);
  assert.match(error?.details ?? "", /retry/);
}

/** A 503 unavailable, retryable, whose message matches `names`. */
function assert503(
  res: { status: number; text: string; json?: Record<string, unknown> },
  names: RegExp,
) {
  assert.equal(res.status, 503, res.text);
  assert.equal(res.json?.code, "unavailable");
  assert.equal(res.json?.retryable, true);
  assert.match(String(res.json?.message), names);
}

test("a torn newest log object: a member's Read and Subscribe and the gateway's reads serve every acked record", async () => {
  const read = await memberRead();
  assert.equal(read.error, undefined, read.error?.details);
  assert.deepEqual(read.bodies, acked);
  assert.equal(read.tail, String(acked.length));

  const sub = await memberSubscribe();
  assert.deepEqual(sub.bodies, acked);
  // Then it ends as the leader's call did: the reader re-subscribes from its cursor.
  assert.equal(sub.error.code, status.UNAVAILABLE);
  assert.match(sub.error.details, /star s1 at .* did not answer/);

  const unary = await gatewayRead();
  assert.equal(unary.failed, undefined, unary.failed?.text);
  assert.deepEqual(unary.bodies, acked);
  assert.equal(unary.tail, acked.length);

  const sse = await gatewaySse(gwOwn);
  assert.equal(sse.end?.event, "done", sse.end?.data);
  assert.deepEqual(sse.bodies, acked);
  await assertHubSseLoud();

  const s = await stats();
  assert.equal(s.log_objects_torn, "1", "passed over, and counted once");
  assert.equal(s.log_damage_errors, "0");
});

test("a damaged log object in the middle: each read serves only what is before it, then fails naming it", async () => {
  const damaged = logKeys[1] as string;
  const names = new RegExp(`log object ${damaged} is damaged \\(log object: crc mismatch\\)`);
  const original = (await store.get(damaged)) as Uint8Array;
  await store.put(damaged, flipped(original));
  try {
    const before = Number((await stats()).log_damage_errors);
    // What is settled is served from chunks; the page that needs the log fails.
    const read = await memberRead();
    assert.deepEqual(read.bodies, acked.slice(0, 6));
    assertRefusal(read.error, names);

    const sub = await memberSubscribe();
    assert.deepEqual(sub.bodies, acked.slice(0, 6));
    assertRefusal(sub.error, names);

    const unary = await gatewayRead();
    assert.deepEqual(unary.bodies, acked.slice(0, 6));
    assert503(unary.failed as Parameters<typeof assert503>[0], names);

    const sse = await gatewaySse(gwOwn);
    assert.deepEqual(sse.bodies, acked.slice(0, 6));
    assert.equal(sse.end?.event, "error", sse.end?.data);
    assert.equal(sse.error.code, "unavailable");
    assert.equal(sse.error.retryable, true);
    assert.match(sse.error.message, names);
    await assertHubSseLoud();

    // Every refusal above was the member's: counted, and logged as an error.
    const refused = Number((await stats()).log_damage_errors) - before;
    assert.ok(refused >= 4, `log_damage_errors went up by ${refused}`);
    const member = stars.get("s2") as StarProcess;
    await waitFor(() => member.proc.stderr().includes(damaged), { message: "the error line" });
    assert.match(member.proc.stderr(), /"level":50.*log read refused: damaged log/);
  } finally {
    await store.put(damaged, original);
  }
});

test("a log object missing from the middle: reads stop where the stream's entries do, saying so", async () => {
  const missing = logKeys[2] as string;
  const original = (await store.get(missing)) as Uint8Array;
  // It held records 10 and 11; later ones are in the next object.
  await store.delete([missing]);
  const names = /stream \S+ has no record 10 in its chunks or in star s1's log objects/;
  try {
    const read = await memberRead();
    assert.deepEqual(read.bodies, acked.slice(0, read.bodies.length));
    assert.ok(read.bodies.length <= 10);
    assertRefusal(read.error, names);

    const sub = await memberSubscribe();
    assert.deepEqual(sub.bodies, acked.slice(0, 10));
    assertRefusal(sub.error, names);

    const unary = await gatewayRead();
    assert.deepEqual(unary.bodies, acked.slice(0, unary.bodies.length));
    assert503(unary.failed as Parameters<typeof assert503>[0], names);
  } finally {
    await store.put(missing, original);
  }
});

test("the leader started again on a damaged log refuses its streams naming the object, and keeps the log", async () => {
  const damaged = logKeys[1] as string;
  const names = new RegExp(`log object ${damaged} is damaged`);
  await store.put(damaged, flipped((await store.get(damaged)) as Uint8Array));
  stars.set("s1", await start("s1"));

  const append = await refusal(
    call(client("s1"), "Append", { bucket: BUCKET, key, records: [{ body: Buffer.from("x") }] }),
  );
  assertRefusal(append, names);
  // Until the gateway's channel to s1 has reconnected, s1 reads as unreachable (also a 503).
  const appended = await waitFor(
    async () => {
      const res = await http(gw.base, "POST", `${path}/records`, { records: [{ body: "x" }] });
      return /unreachable/.test(res.json?.message) ? undefined : res;
    },
    { timeoutMs: 30_000, intervalMs: 100, message: "the gateway to reach s1" },
  );
  assert503(appended, names);
  assert.equal(appended.json?.outcome, undefined, "nothing was appended, and the star says so");
  const unary = await gatewayRead();
  assert.deepEqual(unary.bodies, acked.slice(0, unary.bodies.length));
  assert503(unary.failed as Parameters<typeof assert503>[0], names);

  assert.ok(Number((await starStats(address("s1"))).log_damage_errors) >= 1);
  // Nothing was settled from it or deleted: the log waits for repair, torn object and all
  // (s1 voided the numbers above it, fencing its last run, before it read the log).
  assert.equal((await unsettledLogKeys()).length, logKeys.length + 1);
});

/**
 * s1's log objects that hold records past the settled ones (r0..r5), or that do not decode:
 * not its voids, nor the settled object a fleet member keeps as its log's newest (commit-log.ts).
 */
async function unsettledLogKeys(): Promise<string[]> {
  const keys: string[] = [];
  for (const { key } of (await store.list(logPrefix("s1"))).objects) {
    const body = (await store.get(key)) as Buffer;
    if (decodeLogVoid(body)) continue;
    try {
      if (decodeLogObject(body).some((e) => e.firstSeqNum >= 6n)) keys.push(key);
    } catch {
      keys.push(key);
    }
  }
  return keys;
}

/** The bytes with one bit flipped in the middle: the object's CRC no longer matches. */
function flipped(bytes: Uint8Array): Buffer {
  const out = Buffer.from(bytes);
  const at = out.length >> 1;
  out[at] = (out[at] as number) ^ 0x10;
  return out;
}
