// A gateway that knows only one star of a fleet of three (star processes with --fleet over one
// s3rver) serves streams led by the other two: the first leader-only call on such a stream
// follows one NotOwner redirect, and later calls go straight to the learned leader, which
// /metrics shows as no new redirect.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type RunningS3rver, startS3rver } from "../../src/platform/objstore/index.ts";
import type { Member } from "../../src/star/fleet/members.ts";
import { fleetMembers, keyLedBy, startMember } from "../harness/fleet.ts";
import { type Gateway, inProcessGateway } from "../harness/gateway.ts";
import { http as httpAt } from "../harness/http.ts";
import { metric } from "../harness/metrics.ts";
import { type StarProcess, s3Storage } from "../harness/star-process.ts";

const NAMES = ["s1", "s2", "s3"] as const;

let dir: string | undefined;
let s3: RunningS3rver | undefined;
let members: Member[] = [];
const stars: StarProcess[] = [];
let gw: Gateway | undefined;
let base = "";

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "nova-gw-fleet-"));
  s3 = await startS3rver({ port: 0, dataDir: dir, buckets: ["nova"] });
  members = await fleetMembers(NAMES);
  const storage = s3Storage(s3.url);
  const started = await Promise.all(NAMES.map((name) => startMember(storage, members, name)));
  stars.push(...started);
  // The gateway is told about s1 only.
  gw = await inProcessGateway([(members[0] as Member).address], { checkResponses: true });
  base = gw.base;
});

after(async () => {
  await gw?.close();
  for (const star of stars) {
    star.client.close();
    await star.proc.kill("SIGTERM");
  }
  await s3?.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

const http = (method: string, path: string, body?: unknown) => httpAt(base, method, path, body);

/** Redirects the gateway has followed, over all verbs, from its own /metrics. */
const redirects = () => metric(base, "nova_gateway_redirects_total");

test("streams led by stars the gateway was not told about are served, redirected once", async () => {
  const bucket = `fleet-${process.pid}`;
  const created = await http("POST", "/v1/buckets", { name: bucket });
  assert.equal(created.status, 201, created.text);
  for (const leader of ["s2", "s3", "s1"] as const) {
    const key = keyLedBy(members, bucket, leader);
    const path = `/v1/buckets/${bucket}/streams/${key}`;
    const stream = await http("POST", `/v1/buckets/${bucket}/streams`, { key });
    assert.equal(stream.status, 201, stream.text);

    const before = await redirects();
    const first = await http("POST", `${path}/records`, { records: [{ body: `${leader}-1` }] });
    assert.equal(first.status, 200, first.text);
    const afterFirst = await redirects();
    // s1, the star the gateway knows, leads its own streams: no redirect at all.
    assert.equal(afterFirst - before, leader === "s1" ? 0 : 1, `first append to ${leader}`);

    const second = await http("POST", `${path}/records`, { records: [{ body: `${leader}-2` }] });
    assert.equal(second.status, 200, second.text);
    assert.equal(second.json.start.seq_num, 1);
    const tail = await http("GET", `${path}/records/tail`);
    assert.equal(tail.json.tail.seq_num, 2, tail.text);
    const fence = await http("POST", `${path}/fence`, { fencing_token: "" });
    assert.equal(fence.status, 200, fence.text);
    assert.equal(await redirects(), afterFirst, `later calls on ${leader}'s stream`);

    const read = await http("GET", `${path}/records?seq_num=0`);
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(
      read.json.records.map((r: { body: string }) => r.body),
      [`${leader}-1`, `${leader}-2`],
    );
  }
});

test("a killed leader: calls on its streams answer 503 naming it, retryable", async () => {
  const bucket = `down-${process.pid}`;
  assert.equal((await http("POST", "/v1/buckets", { name: bucket })).status, 201);
  const key = keyLedBy(members, bucket, "s3");
  const path = `/v1/buckets/${bucket}/streams/${key}`;
  assert.equal((await http("POST", `/v1/buckets/${bucket}/streams`, { key })).status, 201);
  assert.equal((await http("GET", `${path}/records/tail`)).status, 200);

  await (stars[2] as StarProcess).proc.kill("SIGKILL");
  const s3Address = (members[2] as Member).address;
  for (const [method, route, body] of [
    ["GET", `${path}/records/tail`, undefined],
    ["POST", `${path}/records`, { records: [{ body: "x" }] }],
  ] as const) {
    const res = await http(method, route, body);
    assert.equal(res.status, 503, res.text);
    assert.equal(res.json.code, "unavailable");
    assert.equal(res.json.retryable, true);
    assert.ok(res.headers["retry-after"]);
    assert.match(res.json.message, new RegExp(`leader s3 \\(${s3Address}\\) is unreachable`));
    assert.match(res.json.message, /retry/);
    assert.doesNotMatch(res.json.message, /disagree|hops/);
  }
});
