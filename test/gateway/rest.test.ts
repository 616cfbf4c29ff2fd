// The REST routes over a real socket, through the real fleet client, to a real star process on
// a real s3rver (the star's embedded one).
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import pino from "pino";
import { request } from "undici";
import { buildApp } from "../../src/app.ts";
import { FleetClient } from "../../src/fleet/fleet-client.ts";
import { fleetUpstream, metricsObserver } from "../../src/gateway/fleet-upstream.ts";
import { createMetrics } from "../../src/plugins/metrics.ts";
import { type StarProcess, startStarProcess } from "../harness/star-process.ts";

let dir: string;
let star: StarProcess;
let fleet: FleetClient;
let base: string;
let close: () => Promise<void>;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "nova-gw-"));
  star = await startStarProcess(["--data-dir", dir]);
  const metrics = createMetrics();
  fleet = new FleetClient({ stars: [star.address], observer: metricsObserver(metrics) });
  const app = await buildApp({
    upstream: fleetUpstream(fleet),
    metrics,
    logger: pino({ level: "silent" }),
    bodyLimit: 4 * 1024 * 1024,
    inflightAppendBytes: 64 * 1024 * 1024,
    corsOrigins: ["http://example.test"],
  });
  base = await app.listen({ host: "127.0.0.1", port: 0 });
  close = async () => {
    await app.close();
    fleet.close();
  };
});
after(async () => {
  await close?.();
  star?.client.close();
  await star?.proc.kill("SIGTERM");
  await rm(dir, { recursive: true, force: true });
});

async function http(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const res = await request(base + path, {
    method: method as "GET",
    headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.body.text();
  const isJson = String(res.headers["content-type"] ?? "").includes("json");
  return {
    status: res.statusCode,
    headers: res.headers,
    text,
    json: isJson && text ? JSON.parse(text) : undefined,
  };
}

let n = 0;
async function bucket(config: Record<string, unknown> = {}) {
  const name = `gw-${process.pid}-${++n}`;
  const res = await http("POST", "/v1/buckets", { name, ...config });
  assert.equal(res.status, 201, res.text);
  return name;
}

describe("buckets and streams", () => {
  test("bucket lifecycle", async () => {
    const name = await bucket({ default_class: "CLASS_EXPRESS" });
    const got = await http("GET", `/v1/buckets/${name}`);
    assert.equal(got.status, 200);
    assert.equal(got.json.default_class, "CLASS_EXPRESS");
    const listed = await http("GET", `/v1/buckets?prefix=${name}`);
    assert.deepEqual(
      listed.json.buckets.map((b: { name: string }) => b.name),
      [name],
    );
    assert.equal(listed.json.next, "");
    const patched = await http("PATCH", `/v1/buckets/${name}`, { create_stream_on_append: true });
    assert.equal(patched.status, 200);
    assert.equal(patched.json.create_stream_on_append, true);
    assert.equal((await http("DELETE", `/v1/buckets/${name}`)).status, 202);
    const gone = await http("GET", `/v1/buckets/${name}`);
    assert.equal(gone.status, 404);
    assert.equal(gone.json.code, "bucket_not_found");
  });

  test("a bad bucket name is 400 bad_path before any star is asked", async () => {
    const res = await http("GET", "/v1/buckets/Not_Valid");
    assert.equal(res.status, 400);
    assert.equal(res.json.code, "bad_path");
    assert.match(res.json.message, /bucket/);
  });

  test("stream lifecycle with a percent-encoded key", async () => {
    const b = await bucket();
    const created = await http("POST", `/v1/buckets/${b}/streams`, {
      key: "a/b c",
      class: "CLASS_EXPRESS",
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json.key, "a/b c");
    const again = await http("POST", `/v1/buckets/${b}/streams`, { key: "a/b c" });
    assert.equal(again.status, 409);
    assert.equal(again.json.code, "already_exists");
    const path = `/v1/buckets/${b}/streams/${encodeURIComponent("a/b c")}`;
    const got = await http("GET", path);
    assert.equal(got.status, 200);
    assert.equal(got.json.stream.class, "CLASS_EXPRESS");
    assert.equal(got.json.fencing_token, "");
    const patched = await http("PATCH", path, { retention_max_age_ms: 0 });
    assert.equal(patched.status, 200, patched.text);
    const listed = await http("GET", `/v1/buckets/${b}/streams?limit=5`);
    assert.deepEqual(
      listed.json.streams.map((s: { key: string }) => s.key),
      ["a/b c"],
    );
    assert.equal((await http("DELETE", path)).status, 202);
    const gone = await http("GET", path);
    assert.equal(gone.status, 404);
    assert.equal(gone.json.code, "stream_not_found");
  });
});

describe("records", () => {
  async function stream(config: Record<string, unknown> = {}) {
    const b = await bucket();
    const res = await http("POST", `/v1/buckets/${b}/streams`, { key: "s", ...config });
    assert.equal(res.status, 201, res.text);
    return `/v1/buckets/${b}/streams/s`;
  }

  test("append and read in raw, headers in order with duplicates", async () => {
    const s = await stream();
    const ack = await http("POST", `${s}/records`, {
      records: [
        { body: "héllo 🌍", headers: [{ name: "k", value: "1" }, ["k", "2"]] },
        { body: "" },
      ],
    });
    assert.equal(ack.status, 200, ack.text);
    assert.equal(ack.json.start.seq_num, 0);
    assert.equal(ack.json.end.seq_num, 2);
    const read = await http("GET", `${s}/records?seq_num=0`);
    assert.equal(read.status, 200);
    assert.deepEqual(read.json.records[0].headers, [
      { name: "k", value: "1" },
      { name: "k", value: "2" },
    ]);
    assert.equal(read.json.records[0].body, "héllo 🌍");
    assert.equal(read.json.tail.seq_num, 2);
    const tail = await http("GET", `${s}/records/tail`);
    assert.equal(tail.json.tail.seq_num, 2);
  });

  test("base64 round-trips arbitrary bytes; raw refuses them with 422 naming the seq_num", async () => {
    const s = await stream();
    const bytes = Buffer.from([0xff, 0x00, 0xc3, 0x28]).toString("base64");
    const ack = await http("POST", `${s}/records?format=base64`, { records: [{ body: bytes }] });
    assert.equal(ack.status, 200, ack.text);
    const b64 = await http("GET", `${s}/records?seq_num=0`, undefined, { "nova-format": "base64" });
    assert.equal(b64.json.records[0].body, bytes);
    const raw = await http("GET", `${s}/records?seq_num=0`);
    assert.equal(raw.status, 422);
    assert.equal(raw.json.code, "not_utf8");
    assert.match(raw.json.message, /0/);
  });

  test("a timestamp of 2^60+1 on an uncapped stream round-trips exactly", async () => {
    const s = await stream({ timestamping_uncapped: true });
    const big = (2n ** 60n + 1n).toString();
    const ack = await http(
      "POST",
      `${s}/records`,
      `{"records":[{"body":"x","timestamp_ms":${big}}]}`,
    );
    assert.equal(ack.status, 200, ack.text);
    assert.match(ack.text, new RegExp(`"timestamp_ms":${big}`));
    const read = await http("GET", `${s}/records?seq_num=0`);
    assert.match(read.text, new RegExp(`"timestamp_ms":${big}`));
    const asString = await http("GET", `${s}/records?seq_num=0&int64=string`);
    assert.equal(asString.json.records[0].timestamp_ms, big);
  });

  test("match_seq_num miss is 412 with expected_seq_num; beyond the tail is 416 with the tail", async () => {
    const s = await stream();
    await http("POST", `${s}/records`, { records: [{ body: "a" }] });
    const miss = await http("POST", `${s}/records`, { records: [{ body: "b" }], match_seq_num: 5 });
    assert.equal(miss.status, 412);
    assert.equal(miss.json.code, "seq_num_mismatch");
    assert.equal(miss.json.expected_seq_num, 1);
    const beyond = await http("GET", `${s}/records?seq_num=9`);
    assert.equal(beyond.status, 416);
    assert.equal(beyond.json.code, "range_not_satisfiable");
    assert.equal(beyond.json.tail.seq_num, 1);
    const clamped = await http("GET", `${s}/records?seq_num=9&clamp=true`);
    assert.equal(clamped.status, 200);
    assert.deepEqual(clamped.json.records, []);
  });

  test("bad input is refused with the right status and code, and appends nothing", async () => {
    const s = await stream();
    const cases: [string, unknown, Record<string, string>, number, string][] = [
      [`${s}/records`, "{not json", {}, 400, "bad_json"],
      [`${s}/records`, { records: [] }, {}, 400, "invalid_argument"],
      [`${s}/records`, { records: [{ body: 5 }] }, {}, 400, "invalid_argument"],
      [`${s}/records?format=base64`, { records: [{ body: "%%%" }] }, {}, 400, "bad_base64"],
      [`${s}/records?format=hex`, { records: [{ body: "x" }] }, {}, 400, "bad_query"],
      [`${s}/records`, "body", { "content-type": "text/plain" }, 415, "unsupported_media_type"],
      [
        `${s}/records`,
        { records: [{ body: "x".repeat(5 * 1024 * 1024) }] },
        {},
        413,
        "payload_too_large",
      ],
      [
        `${s}/records`,
        { records: [{ body: "x", headers: [{ name: "", value: "v" }] }] },
        {},
        400,
        "invalid_argument",
      ],
    ];
    for (const [path, body, headers, status, code] of cases) {
      const res = await http("POST", path, body, headers);
      assert.equal(
        res.status,
        status,
        `${JSON.stringify(body).slice(0, 60)}: ${res.text.slice(0, 200)}`,
      );
      assert.equal(res.json.code, code);
      assert.equal(typeof res.json.message, "string");
    }
    const tail = await http("GET", `${s}/records/tail`);
    assert.equal(tail.json.tail.seq_num, 0);
    const badQuery = await http("GET", `${s}/records?seq_num=1&timestamp_ms=2`);
    assert.equal(badQuery.status, 400);
    assert.equal(badQuery.json.code, "bad_query");
  });

  test("trim is 204 and fence answers the tail", async () => {
    const s = await stream();
    await http("POST", `${s}/records`, { records: [{ body: "a" }, { body: "b" }] });
    assert.equal((await http("POST", `${s}/trim`, { seq_num: 1 })).status, 204);
    const read = await http("GET", `${s}/records?seq_num=0`);
    assert.equal(read.json.records[0].seq_num, 1);
    const fence = await http("POST", `${s}/fence`, { fencing_token: "t" });
    assert.equal(fence.status, 200, fence.text);
    assert.equal(fence.json.tail.seq_num, 2);
    const denied = await http("POST", `${s}/records`, {
      records: [{ body: "c" }],
      fencing_token: "u",
    });
    assert.equal(denied.status, 412);
    assert.equal(denied.json.code, "fencing_token_mismatch");
  });
});

describe("service routes", () => {
  test("livez, readyz and metrics", async () => {
    assert.equal((await http("GET", "/livez")).status, 200);
    assert.equal((await http("GET", "/readyz")).status, 200);
    const metrics = await http("GET", "/metrics");
    assert.match(metrics.text, /nova_gateway_requests_total/);
    assert.match(
      metrics.text,
      /nova_gateway_upstream_calls_total\{verb="CreateBucket",code="OK"\}/,
    );
  });

  test("CORS preflight for an allowed origin exposes the gateway's headers", async () => {
    const res = await request(`${base}/v1/buckets`, {
      method: "OPTIONS",
      headers: {
        origin: "http://example.test",
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type,authorization",
      },
    });
    await res.body.text();
    assert.equal(res.statusCode, 204);
    assert.equal(res.headers["access-control-allow-origin"], "http://example.test");
  });
});
