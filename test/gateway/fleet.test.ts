// A gateway that knows only one star of a fleet of three (star processes with --fleet over one
// s3rver) serves streams led by the other two: the first leader-only call on such a stream
// follows one NotOwner redirect, and later calls go straight to the learned leader, which
// /metrics shows as no new redirect.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import pino from "pino";
import { request } from "undici";
import { buildApp } from "../../src/app.ts";
import { FleetClient } from "../../src/fleet/fleet-client.ts";
import { fleetUpstream, metricsObserver } from "../../src/gateway/fleet-upstream.ts";
import { type RunningS3rver, startS3rver } from "../../src/objstore/s3rver-server.ts";
import { createMetrics } from "../../src/plugins/metrics.ts";
import { Fleet, type Member } from "../../src/star/fleet/members.ts";
import { freePort } from "../harness/ports.ts";
import { type StarProcess, startStarProcess } from "../harness/star-process.ts";

const NAMES = ["s1", "s2", "s3"] as const;
type Name = (typeof NAMES)[number];

let dir: string | undefined;
let s3: RunningS3rver | undefined;
let members: Member[] = [];
const stars: StarProcess[] = [];
let base = "";
let close: (() => Promise<void>) | undefined;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "nova-gw-fleet-"));
  s3 = await startS3rver({ port: 0, dataDir: dir, buckets: ["nova"] });
  const ports = await Promise.all(NAMES.map(() => freePort()));
  members = NAMES.map((name, i) => ({ name, address: `127.0.0.1:${ports[i]}` }));
  const list = members.map((m) => `${m.name}=${m.address}`).join(",");
  const started = await Promise.all(
    members.map((m) =>
      startStarProcess(["--s3-endpoint", (s3 as RunningS3rver).url, "--s3-bucket", "nova"], {
        listen: m.address,
        args: ["--self", m.name, "--fleet", list],
      }),
    ),
  );
  stars.push(...started);
  const metrics = createMetrics();
  // The gateway is told about s1 only.
  const fleet = new FleetClient({
    stars: [(members[0] as Member).address],
    observer: metricsObserver(metrics),
  });
  const app = await buildApp({
    upstream: fleetUpstream(fleet),
    metrics,
    logger: pino({ level: "silent" }),
    bodyLimit: 4 * 1024 * 1024,
    inflightAppendBytes: 64 * 1024 * 1024,
    corsOrigins: [],
    checkResponses: true,
  });
  base = await app.listen({ host: "127.0.0.1", port: 0 });
  close = async () => {
    await app.close();
    fleet.close();
  };
});

after(async () => {
  await close?.();
  for (const star of stars) {
    star.client.close();
    await star.proc.kill("SIGTERM");
  }
  await s3?.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

async function http(method: string, path: string, body?: unknown) {
  const res = await request(base + path, {
    method: method as "GET",
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  const isJson = String(res.headers["content-type"] ?? "").includes("json");
  return { status: res.statusCode, text, json: isJson && text ? JSON.parse(text) : undefined };
}

/** Redirects the gateway has followed, over all verbs, from its own /metrics. */
async function redirects(): Promise<number> {
  const { text } = await http("GET", "/metrics");
  return text
    .split("\n")
    .filter((line) => line.startsWith("nova_gateway_redirects_total{"))
    .reduce((sum, line) => sum + Number(line.split(" ").pop()), 0);
}

function keyLedBy(bucket: string, leader: Name): string {
  const fleet = new Fleet("s1", members);
  for (let i = 0; ; i++) {
    const key = `k-${i}`;
    if (fleet.leaderOf(bucket, key).name === leader) return key;
  }
}

test("streams led by stars the gateway was not told about are served, redirected once", async () => {
  const bucket = `fleet-${process.pid}`;
  const created = await http("POST", "/v1/buckets", { name: bucket });
  assert.equal(created.status, 201, created.text);
  for (const leader of ["s2", "s3", "s1"] as const) {
    const key = keyLedBy(bucket, leader);
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
