// The REST routes over a real socket, through the real fleet client, to a real star process on
// a real s3rver (the star's embedded one).
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { after, before, describe, test } from "node:test";
import fc from "fast-check";
import { request } from "undici";
import { MAX_BATCH_RECORDS } from "../../src/contract/wire-limits.ts";
import { type Gateway, inProcessGateway } from "../harness/gateway.ts";
import { http as httpAt } from "../harness/http.ts";
import { scraped } from "../harness/metrics.ts";
import { type Stack, startStack } from "../harness/stack.ts";
import { waitFor } from "../harness/wait.ts";

let stack: Stack<Gateway>;
let base: string;

before(async () => {
  stack = await startStack("nova-gw-", {
    gateway: { corsOrigins: ["http://example.test"], checkResponses: true },
  });
  base = stack.gw.base;
});
after(() => stack?.close());

const http = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
  httpAt(base, method, path, body, headers);

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
    // Again: 202, as for a stream (the contract's answer for a bucket already deleted).
    assert.equal((await http("DELETE", `/v1/buckets/${name}`)).status, 202);
    const gone = await http("GET", `/v1/buckets/${name}`);
    assert.equal(gone.status, 404);
    assert.equal(gone.json.code, "bucket_not_found");
  });

  test("on a create an UNSPECIFIED enum takes the default, as leaving the field out does", async () => {
    const name = await bucket({
      default_class: "CLASS_UNSPECIFIED",
      default_producer_policy: "PRODUCER_POLICY_UNSPECIFIED",
      default_timestamping_mode: "TIMESTAMPING_MODE_UNSPECIFIED",
    });
    const got = await http("GET", `/v1/buckets/${name}`);
    assert.equal(got.json.default_class, "CLASS_STANDARD");
    assert.equal(got.json.default_producer_policy, "PRODUCER_POLICY_ANY");
    assert.equal(got.json.default_timestamping_mode, "TIMESTAMPING_MODE_CLIENT_PREFER");
    // A stream takes its bucket's defaults.
    const express = await bucket({ default_class: "CLASS_EXPRESS" });
    const created = await http("POST", `/v1/buckets/${express}/streams`, {
      key: "k",
      class: "CLASS_UNSPECIFIED",
      timestamping_mode: "TIMESTAMPING_MODE_UNSPECIFIED",
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json.class, "CLASS_EXPRESS");
    assert.equal(created.json.timestamping_mode, "TIMESTAMPING_MODE_CLIENT_PREFER");
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

  test("a key that starts with U+FEFF is its own stream: listed and read as written", async () => {
    const b = await bucket();
    for (const key of ["\uFEFFk", "k"]) {
      const created = await http("POST", `/v1/buckets/${b}/streams`, { key });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.json.key, key);
      const path = `/v1/buckets/${b}/streams/${encodeURIComponent(key)}/records`;
      const appended = await http("POST", path, { records: [{ body: `in ${key}` }] });
      assert.equal(appended.status, 200, appended.text);
    }
    const listed = await http("GET", `/v1/buckets/${b}/streams`);
    assert.deepEqual(
      listed.json.streams.map((s: { key: string }) => s.key),
      ["k", "\uFEFFk"],
    );
    const read = await http(
      "GET",
      `/v1/buckets/${b}/streams/${encodeURIComponent("\uFEFFk")}/records?seq_num=0`,
    );
    assert.deepEqual(
      read.json.records.map((r: { body: string }) => r.body),
      ["in \uFEFFk"],
    );
  });
});

describe("records", () => {
  async function stream(config: Record<string, unknown> = {}) {
    const b = await bucket();
    const res = await http("POST", `/v1/buckets/${b}/streams`, { key: "s", ...config });
    assert.equal(res.status, 201, res.text);
    return `/v1/buckets/${b}/streams/s`;
  }

  test("record times are int64 everywhere: a negative stamp is appended, read and trimmed by", async () => {
    const path = await stream();
    const first = await http("POST", `${path}/records`, {
      records: [{ body: "old", timestamp_ms: -1000 }],
    });
    assert.equal(first.status, 200, first.text);
    assert.equal(first.json.start.timestamp_ms, -1000);
    // Below the last record's time: clamped up to it, as any earlier stamp is.
    const second = await http("POST", `${path}/records`, {
      records: [{ body: "older", timestamp_ms: "-9223372036854775808" }],
    });
    assert.equal(second.json.start.timestamp_ms, -1000);
    const third = await http("POST", `${path}/records`, { records: [{ body: "now" }] });
    assert.ok(third.json.start.timestamp_ms > 0);
    const read = await http("GET", `${path}/records?timestamp_ms=-5000`);
    assert.deepEqual(
      read.json.records.map((r: { body: string; timestamp_ms: number }) => [
        r.body,
        r.timestamp_ms,
      ]),
      [
        ["old", -1000],
        ["older", -1000],
        ["now", third.json.start.timestamp_ms],
      ],
    );
    const trimmed = await http("POST", `${path}/trim`, { timestamp_ms: -999 });
    assert.equal(trimmed.status, 204, trimmed.text);
    const after = await http("GET", `${path}/records?seq_num=0`);
    assert.deepEqual(
      after.json.records.map((r: { body: string }) => r.body),
      ["now"],
    );
  });

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
      // Neither body nor content type: no media type's schema applies.
      [`${s}/records`, undefined, {}, 400, "invalid_argument"],
      [`${s}/records`, { records: [] }, {}, 400, "invalid_argument"],
      [`${s}/records`, { records: [{ body: 5 }] }, {}, 400, "invalid_argument"],
      [`${s}/records?format=base64`, { records: [{ body: "%%%" }] }, {}, 400, "bad_base64"],
      [`${s}/records?format=hex`, { records: [{ body: "x" }] }, {}, 400, "bad_query"],
      [`${s}/records`, "body", { "content-type": "text/plain" }, 415, "unsupported_media_type"],
      // Bodies are read as UTF-8: another charset is refused, not misread.
      [
        `${s}/records`,
        '{"records":[{"body":"\u00c3\u00a9"}]}',
        { "content-type": "application/json; charset=latin1" },
        415,
        "unsupported_media_type",
      ],
      [
        `${s}/records`,
        '{"records":[{"body":"x"}]}\n',
        { "content-type": "application/x-ndjson; charset=utf-16" },
        415,
        "unsupported_media_type",
      ],
      // Nothing decodes a request body: read as sent, a compressed one would be stored so.
      [
        `${s}/records`,
        { records: [{ body: "x" }] },
        { "content-encoding": "gzip" },
        415,
        "unsupported_media_type",
      ],
      [
        `${s}/records`,
        '{"records":[{"body":"x"}]}\n',
        { "content-type": "application/x-ndjson", "content-encoding": "zstd" },
        415,
        "unsupported_media_type",
      ],
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
        `${String(JSON.stringify(body)).slice(0, 60)}: ${res.text.slice(0, 200)}`,
      );
      assert.equal(res.json.code, code);
      assert.equal(typeof res.json.message, "string");
    }
    const many = { records: Array.from({ length: MAX_BATCH_RECORDS + 1 }, () => ({})) };
    const tooMany = await http("POST", `${s}/records`, many);
    assert.equal(tooMany.status, 400, tooMany.text.slice(0, 200));
    assert.equal(tooMany.json.code, "invalid_argument");
    assert.match(tooMany.json.message, /records.*at most 10000 items/);
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
  test("a subscription its client ends is counted as the requests that end on their own are", async () => {
    const { path: s } = await newStream();
    const route = { method: "GET", route: "/v1/buckets/:bucket/streams/:key/records" };
    const counted = async (status: string) =>
      scraped((await http("GET", "/metrics")).text, "nova_gateway_requests_total", {
        ...route,
        status,
      });
    const before = await counted("200");
    const sse = await request(`${base}${s}/records?seq_num=0`, {
      headers: { accept: "text/event-stream" },
    });
    assert.equal(sse.statusCode, 200);
    // Its first event, then the client leaves.
    for await (const _ of sse.body) break;
    await waitFor(async () => (await counted("200")) === before + 1, {
      message: "the subscription counted once it ended",
    });
  });

  test("a URL that does not parse is counted as every other answer is", async () => {
    const counted = async () =>
      scraped((await http("GET", "/metrics")).text, "nova_gateway_requests_total", {
        method: "GET",
        route: "unmatched",
        status: "400",
      });
    const before = await counted();
    assert.equal((await http("GET", "/v1/buckets/%E0%A4%A/streams")).status, 400);
    assert.equal(await counted(), before + 1);
  });

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

  test("CORS lets a page send a producer's stamp and read that a retry was a duplicate", async () => {
    const res = await request(`${base}/v1/buckets/b/streams/s/records`, {
      method: "OPTIONS",
      headers: {
        origin: "http://example.test",
        "access-control-request-method": "POST",
        "access-control-request-headers": "nova-producer-id,nova-producer-epoch,nova-producer-seq",
      },
    });
    await res.body.text();
    assert.equal(res.statusCode, 204);
    const names = (value: unknown) =>
      String(value)
        .split(",")
        .map((name) => name.trim());
    const allowed = names(res.headers["access-control-allow-headers"]);
    // And the Durable Streams face's fork refinement, which shares the gateway's CORS.
    for (const name of [
      "nova-producer-id",
      "nova-producer-epoch",
      "nova-producer-seq",
      "stream-fork-sub-offset",
    ]) {
      assert.ok(allowed.includes(name), `${name} in ${allowed}`);
    }
    const { path } = await newStream();
    const append = await request(`${base}${path}/records`, {
      method: "POST",
      headers: { origin: "http://example.test", "content-type": "application/json" },
      body: JSON.stringify({ records: [{ body: "a" }] }),
    });
    await append.body.text();
    const exposed = names(append.headers["access-control-expose-headers"]);
    assert.ok(exposed.includes("nova-producer-duplicate"), String(exposed));
  });

  test("a write from a page of another origin is 403 unless --cors-origins names it; nothing changes", async () => {
    const { path } = await newStream();
    const put = await request(`${base}/ds/v1/stream/cross-${process.pid}`, {
      method: "PUT",
      headers: { "content-type": "text/plain" },
    });
    assert.equal(put.statusCode, 201, await put.body.text());
    // A form's POST: text/plain, no preflight.
    const post = (origin: string, host?: string) =>
      request(`${base}/ds/v1/stream/cross-${process.pid}`, {
        method: "POST",
        headers: { origin, "content-type": "text/plain", ...(host ? { host } : {}) },
        body: origin,
      });
    const evil = await post("https://evil.example");
    assert.equal(evil.statusCode, 403);
    const body = (await evil.body.json()) as { code: string; message: string };
    assert.equal(body.code, "permission_denied");
    assert.match(body.message, /https:\/\/evil\.example.*--cors-origins/);
    assert.equal((await post("null")).statusCode, 403, "an opaque origin");
    const allowed = await post("http://example.test");
    assert.equal(allowed.statusCode, 204, await allowed.body.text());
    // The gateway's own pages (the console): the origin is the host asked.
    const own = await post(base);
    assert.equal(own.statusCode, 204, await own.body.text());
    const read = await request(`${base}/ds/v1/stream/cross-${process.pid}?offset=-1`);
    assert.equal(await read.body.text(), `http://example.test${base}`);
    // Reads are not writes: another origin may ask (CORS decides whether its page sees).
    const get = await request(`${base}${path}/records/tail`, {
      headers: { origin: "https://evil.example" },
    });
    assert.equal(get.statusCode, 200, await get.body.text());
    const del = await request(`${base}${path}`, {
      method: "DELETE",
      headers: { origin: "https://evil.example" },
    });
    assert.equal(del.statusCode, 403, await del.body.text());
  });

  test("a cacheable page read from an allowed origin varies on Origin as well", async () => {
    const { path } = await newStream();
    await http("POST", `${path}/records`, { records: [{ body: "a" }, { body: "b" }] });
    const res = await request(`${base}${path}/records?seq_num=0&count=1`, {
      headers: { origin: "http://example.test" },
    });
    await res.body.text();
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers["cache-control"], "public, max-age=60");
    const vary = String(res.headers.vary)
      .split(",")
      .map((name) => name.trim().toLowerCase());
    assert.deepEqual(vary.sort(), [
      "accept",
      "accept-encoding",
      "authorization",
      "nova-format",
      "origin",
    ]);
  });
});

function assertError(
  res: { status: number; json?: { code?: string; field?: string; message?: string }; text: string },
  status: number,
  code: string,
  field?: string,
) {
  assert.equal(res.status, status, res.text);
  assert.equal(res.json?.code, code, res.text);
  assert.equal(typeof res.json?.message, "string");
  if (field !== undefined) {
    assert.equal(res.json?.field, field, res.text);
    assert.ok(res.json?.message?.startsWith(`${field}: `), res.text);
  }
}

async function newStream(config: Record<string, unknown> = {}) {
  const b = await bucket();
  const res = await http("POST", `/v1/buckets/${b}/streams`, { key: "s", ...config });
  assert.equal(res.status, 201, res.text);
  return { bucket: b, path: `/v1/buckets/${b}/streams/s` };
}

describe("validation names the field, by request part", () => {
  test("path parameters: bad_path", async () => {
    assertError(await http("GET", "/v1/buckets/Not_Valid"), 400, "bad_path", "bucket");
    assertError(await http("GET", "/v1/buckets/ab/streams/k"), 400, "bad_path", "bucket");
    const b = await bucket();
    const long = encodeURIComponent("é".repeat(257));
    assertError(await http("GET", `/v1/buckets/${b}/streams/${long}`), 400, "bad_path", "key");
    // An encoded lone surrogate is not UTF-8.
    const lone = await http("GET", `/v1/buckets/${b}/streams/%ED%A0%80`);
    assertError(lone, 400, "bad_path", "path");
    const huge = await http("GET", `/v1/buckets/${b}/streams/${"k".repeat(3000)}`);
    assertError(huge, 400, "bad_path", "path");
    assertError(await http("GET", `/v1/buckets/${b}/streams//records`), 400, "bad_path", "key");
  });

  test("a key of . or .., which no URL path names, is refused at create; nothing is made", async () => {
    const b = await bucket();
    for (const key of [".", ".."]) {
      const res = await http("POST", `/v1/buckets/${b}/streams`, { key });
      assertError(res, 400, "invalid_argument", "key");
      assert.match(res.json.message, /no URL path can name/);
    }
    const list = await http("GET", `/v1/buckets/${b}/streams`);
    assert.deepEqual(list.json.streams, []);
  });

  test("query parameters: bad_query", async () => {
    const { path } = await newStream();
    assertError(await http("GET", "/v1/buckets?limit=ten"), 400, "bad_query", "limit");
    assertError(await http("GET", "/v1/buckets?cursor=x"), 400, "bad_query", "cursor");
    // A % that does not start an escape of UTF-8 is not read as the text it spells.
    assertError(await http("GET", "/v1/buckets?prefix=%FF"), 400, "bad_query", "prefix");
    assertError(await http("GET", "/v1/buckets?prefix=%E2%82"), 400, "bad_query", "prefix");
    assertError(await http("GET", "/v1/buckets?limit=1&prefix=a%"), 400, "bad_query", "prefix");
    assert.equal((await http("GET", "/v1/buckets?prefix=%25FF")).status, 200);
    assert.equal((await http("GET", "/v1/buckets?prefix=%E2%82%AC")).status, 200);
    const s2 = await http("GET", "/v1/basins?prefix=%FF");
    assert.deepEqual([s2.status, s2.json.code], [400, "bad_query"]);
    assertError(await http("GET", `${path}/records?clamp=yes`), 400, "bad_query", "clamp");
    assertError(await http("GET", `${path}/records?seq_num=-1`), 400, "bad_query", "seq_num");
    assertError(await http("GET", `${path}/records?wait=100`), 400, "bad_query", "wait");
    assertError(await http("GET", `${path}/records/tail?int64=big`), 400, "bad_query", "int64");
    const repeated = await http("GET", `${path}/records?format=raw&format=base64`);
    assertError(repeated, 400, "bad_query", "format");
    assert.match(repeated.json.message, /more than once/);
    // Beyond uint64: the pattern admits 20 digits, translation the range.
    assertError(
      await http("GET", `${path}/records?seq_num=99999999999999999999`),
      400,
      "bad_query",
      "seq_num",
    );
    assertError(
      await http("POST", `${path}/trim?access_token=t`, { seq_num: 0 }),
      400,
      "bad_query",
      "access_token",
    );
  });

  test("headers: bad_header", async () => {
    const { path } = await newStream();
    const headers = { "nova-format": "hex" };
    assertError(
      await http("POST", `${path}/records`, { records: [{}] }, headers),
      400,
      "bad_header",
      "nova-format",
    );
    assertError(await http("GET", `${path}/records`, undefined, headers), 400, "bad_header");
    const token = { "nova-request-token": "t".repeat(257) };
    const bucket = `tok-${process.pid}`;
    const long = await http("POST", "/v1/buckets", { name: bucket }, token);
    assertError(long, 400, "bad_header", "nova-request-token");
    assert.equal(long.json.message, "nova-request-token: must be at most 256 bytes");
    assert.equal((await http("GET", `/v1/buckets/${bucket}`)).status, 404, "nothing was made");
    // Bytes that are not UTF-8, and a token given twice, are refused too.
    const latin1 = { "nova-request-token": "\xff" };
    const refused = await http("POST", "/v1/buckets", { name: bucket }, latin1);
    assertError(refused, 400, "bad_header", "nova-request-token");
    assert.match(refused.json.message, /is not UTF-8 text/);
    const twice = await request(`${base}/v1/buckets`, {
      method: "POST",
      headers: [
        ...["content-type", "application/json"],
        ...["nova-request-token", "a", "nova-request-token", "b"],
      ],
      body: JSON.stringify({ name: bucket }),
    });
    assert.equal(twice.statusCode, 400);
    assert.match(await twice.body.text(), /nova-request-token: is given more than once/);
    assert.equal((await http("GET", `/v1/buckets/${bucket}`)).status, 404, "nothing was made");
    // 256 bytes of UTF-8 on the wire pass the gateway and the star alike, kept as the text sent.
    const text = "é".repeat(128);
    const utf8 = { "nova-request-token": Buffer.from(text).toString("latin1") };
    const made = await http("POST", "/v1/buckets", { name: bucket }, utf8);
    assert.equal(made.status, 201);
    assert.equal(made.json.creation_token, text);
    const stream = await http("POST", `/v1/buckets/${bucket}/streams`, { key: "k" }, utf8);
    assert.equal(stream.json.creation_token, text);
  });

  test("bodies: bad_json with its position, invalid_argument naming the nested field", async () => {
    const { path } = await newStream();
    const bad = await http("POST", `${path}/records`, '{"records": [}');
    assertError(bad, 400, "bad_json");
    assert.equal(bad.json.position, 13);
    const cases: [unknown, string][] = [
      [{ records: [{ body: "x", headers: [{ name: "k" }] }] }, "records[0].headers[0].value"],
      [{ records: [{}, { headers: [{ name: "", value: "v" }] }] }, "records[1].headers[0].name"],
      [{ records: [{ timestamp_ms: "-9223372036854775809" }] }, "records[0].timestamp_ms"],
      [{ records: [{ timestamp_ms: true }] }, "records[0].timestamp_ms"],
      [{ records: [{ body: "x" }], match_seq_num: 1.5 }, "match_seq_num"],
      [{ records: [{ body: "x" }], extra: 1 }, "extra"],
      [{ record: [] }, "records"],
      [[], "body"],
    ];
    for (const [body, field] of cases) {
      assertError(await http("POST", `${path}/records`, body), 400, "invalid_argument", field);
    }
    assertError(await http("POST", `${path}/records`, ""), 400, "invalid_argument", "body");
    const tail = await http("GET", `${path}/records/tail`);
    assert.equal(tail.json.tail.seq_num, 0);
  });

  test("an exact integer beyond 2^64-1 is refused, not rounded", async () => {
    const { path } = await newStream();
    const res = await http(
      "POST",
      `${path}/records`,
      '{"records":[{"body":"x"}],"match_seq_num":18446744073709551616}',
    );
    assertError(res, 400, "invalid_argument", "match_seq_num");
  });

  test("a number with a fraction or exponent is read exactly, never rounded into an integer", async () => {
    const { path } = await newStream();
    // A double rounds each of these to a whole number; none is one.
    for (const [text, position] of [
      ['{"records":[{"body":"x","timestamp_ms":1.0000000000000001}]}', 39],
      ['{"records":[{"body":"x","timestamp_ms":-1e-400}]}', 39],
      ['{"records":[{"body":"x"}],"match_seq_num":0.99999999999999999}', 42],
    ] as const) {
      const res = await http("POST", `${path}/records`, text);
      assertError(res, 400, "bad_json");
      assert.match(res.json.message, /is not an integer, though a double rounds it to/);
      assert.equal(res.json.position, position);
    }
    assert.equal((await http("GET", `${path}/records/tail`)).json.tail.seq_num, 0);
    // Integers spelled so are those integers, exactly.
    const spelled = await http(
      "POST",
      `${path}/records`,
      '{"records":[{"body":"x","timestamp_ms":1.7e12}],"match_seq_num":0.0e5}',
    );
    assert.equal(spelled.status, 200, spelled.text);
    const read = await http("GET", `${path}/records?seq_num=0`);
    assert.equal(read.json.records[0].timestamp_ms, 1_700_000_000_000);
    const trim = await http("POST", `${path}/trim`, '{"seq_num":1e20}');
    assertError(trim, 400, "invalid_argument", "seq_num");
    assert.match(trim.json.message, /"100000000000000000000"/);
  });
});

describe("every route's errors", () => {
  test("buckets: conflicts, idempotent creation, not found, bad bodies, int64=string", async () => {
    const name = await bucket();
    assertError(await http("POST", "/v1/buckets", { name }), 409, "already_exists");
    const token = { "nova-request-token": "once" };
    const again = `${name}-t`;
    assert.equal((await http("POST", "/v1/buckets", { name: again }, token)).status, 201);
    const retried = await http("POST", "/v1/buckets", { name: again }, token);
    assert.equal(retried.status, 201, retried.text);
    assert.equal(retried.json.creation_token, "once");
    // The same token asking for another config is another request, not a retry.
    const clash = await http(
      "POST",
      "/v1/buckets",
      { name: again, default_class: "CLASS_EXPRESS" },
      token,
    );
    assertError(clash, 409, "already_exists");
    assert.match(clash.json.message, /creation_token was sent with another config/);
    assertError(await http("POST", "/v1/buckets", { name: "x" }), 400, "invalid_argument", "name");
    assertError(await http("POST", "/v1/buckets", {}), 400, "invalid_argument", "name");
    const missing = `gw-missing-${process.pid}`;
    assertError(await http("GET", `/v1/buckets/${missing}`), 404, "bucket_not_found");
    assertError(
      await http("PATCH", `/v1/buckets/${missing}`, { create_stream_on_read: true }),
      404,
      "bucket_not_found",
    );
    assertError(await http("DELETE", `/v1/buckets/${missing}`), 404, "bucket_not_found");
    assertError(
      await http("PATCH", `/v1/buckets/${name}`, { name: "other" }),
      400,
      "invalid_argument",
      "name",
    );
    assertError(
      await http("PATCH", `/v1/buckets/${name}`, { default_class: null }),
      400,
      "invalid_argument",
      "default_class",
    );
    const asString = await http("GET", `/v1/buckets/${name}?int64=string`);
    assert.equal(typeof asString.json.created_at_unix_ms, "string");
    assert.equal(typeof asString.json.default_batch_max_bytes, "string");
  });

  test("streams: not found, conflicts, bad configuration", async () => {
    const missing = `gw-missing-${process.pid}`;
    assertError(await http("GET", `/v1/buckets/${missing}/streams`), 404, "bucket_not_found");
    assertError(
      await http("POST", `/v1/buckets/${missing}/streams`, { key: "k" }),
      404,
      "bucket_not_found",
    );
    const { bucket: b, path } = await newStream();
    assertError(
      await http("POST", `/v1/buckets/${b}/streams`, { key: "s" }),
      409,
      "already_exists",
    );
    assertError(
      await http("PATCH", path, { class: "CLASS_UNSPECIFIED" }),
      400,
      "invalid_argument",
      "class",
    );
    assertError(
      await http("POST", `/v1/buckets/${b}/streams`, { key: "" }),
      400,
      "invalid_argument",
      "key",
    );
    const gone = `/v1/buckets/${b}/streams/nope`;
    assertError(await http("GET", gone), 404, "stream_not_found");
    assertError(await http("PATCH", gone, { retention_max_bytes: 0 }), 404, "stream_not_found");
    assertError(await http("DELETE", gone), 404, "stream_not_found");
    assertError(
      await http("PATCH", path, { batch_max_records: 4294967296 }),
      400,
      "invalid_argument",
      "batch_max_records",
    );
    const listed = await http("GET", `/v1/buckets/${b}/streams?limit=5000&start_after=`);
    assert.equal(listed.status, 200, listed.text);
  });

  test("records: not found, trim and fence bodies", async () => {
    const { bucket: b, path } = await newStream();
    const gone = `/v1/buckets/${b}/streams/nope`;
    assertError(await http("POST", `${gone}/records`, { records: [{}] }), 404, "stream_not_found");
    assertError(await http("GET", `${gone}/records`), 404, "stream_not_found");
    assertError(await http("GET", `${gone}/records/tail`), 404, "stream_not_found");
    assertError(await http("POST", `${gone}/trim`, { seq_num: 0 }), 404, "stream_not_found");
    assertError(
      await http("POST", `${gone}/fence`, { fencing_token: "" }),
      404,
      "stream_not_found",
    );
    assertError(await http("POST", `${path}/trim`, {}), 400, "invalid_argument", "body");
    assertError(
      await http("POST", `${path}/trim`, { seq_num: 1, timestamp_ms: 1 }),
      400,
      "invalid_argument",
      "body",
    );
    assertError(
      await http("POST", `${path}/fence`, { fencing_token: "é".repeat(25) }),
      400,
      "invalid_argument",
      "fencing_token",
    );
    assertError(await http("POST", `${path}/fence`, {}), 400, "invalid_argument", "fencing_token");
    const tail = await http("GET", `${path}/records/tail`);
    assert.equal(tail.json.tail.seq_num, 0);
  });
});

describe("round trips", () => {
  const header = (bytes: fc.Arbitrary<Uint8Array>) =>
    fc.tuple(
      bytes.filter((b) => b.length > 0),
      bytes,
    );

  test("arbitrary bytes and headers round-trip under base64", async () => {
    const { path } = await newStream();
    let next = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            body: fc.uint8Array({ maxLength: 300 }),
            headers: fc.array(header(fc.uint8Array({ maxLength: 20 })), { maxLength: 4 }),
          }),
          { minLength: 1, maxLength: 5 },
        ),
        async (records) => {
          const b64 = (b: Uint8Array) => Buffer.from(b).toString("base64");
          const ack = await http("POST", `${path}/records?format=base64`, {
            records: records.map((r) => ({
              body: b64(r.body),
              headers: r.headers.map(([name, value]) => [b64(name), b64(value)]),
            })),
          });
          assert.equal(ack.status, 200, ack.text);
          assert.equal(ack.json.start.seq_num, next);
          const read = await http(
            "GET",
            `${path}/records?seq_num=${next}&count=${records.length}`,
            undefined,
            {
              "nova-format": "base64",
            },
          );
          assert.equal(read.status, 200, read.text);
          assert.deepEqual(
            read.json.records.map((r: { body: string; headers: unknown[] }) => ({
              body: r.body,
              headers: r.headers,
            })),
            records.map((r) => ({
              body: b64(r.body),
              headers: r.headers.map(([name, value]) => ({ name: b64(name), value: b64(value) })),
            })),
          );
          next += records.length;
        },
      ),
      { numRuns: 25 },
    );
  });

  test("any valid UTF-8 round-trips under raw, astral characters included", async () => {
    const { path } = await newStream();
    let next = 0;
    const text = fc.string({ unit: "binary", maxLength: 200 });
    await fc.assert(
      fc.asyncProperty(
        text,
        fc.tuple(
          text.filter((s) => s.length > 0),
          text,
        ),
        async (body, h) => {
          const ack = await http("POST", `${path}/records`, { records: [{ body, headers: [h] }] });
          assert.equal(ack.status, 200, ack.text);
          const read = await http("GET", `${path}/records?seq_num=${next}&count=1`);
          assert.equal(read.status, 200, read.text);
          assert.equal(read.json.records[0].body, body);
          assert.deepEqual(read.json.records[0].headers, [{ name: h[0], value: h[1] }]);
          next += 1;
        },
      ),
      { numRuns: 25, examples: [["😀𝄞 \u0000\u{10FFFF}", ["ключ", "値"]]] },
    );
  });
});

describe("service", () => {
  test("the OpenAPI document and its browser", async () => {
    const doc = await http("GET", "/openapi.json");
    assert.equal(doc.status, 200, doc.text.slice(0, 400));
    assert.equal(doc.json.openapi, "3.1.0");
    for (const path of [
      "/v1/buckets",
      "/v1/buckets/{bucket}",
      "/v1/buckets/{bucket}/streams",
      "/v1/buckets/{bucket}/streams/{key}",
      "/v1/buckets/{bucket}/streams/{key}/records",
      "/v1/buckets/{bucket}/streams/{key}/records/tail",
      "/v1/buckets/{bucket}/streams/{key}/trim",
      "/v1/buckets/{bucket}/streams/{key}/fence",
    ]) {
      assert.ok(doc.json.paths[path], path);
    }
    assert.ok(doc.json.components.schemas.AppendInput);
    const docs = await http("GET", "/docs");
    assert.equal(docs.status, 200);
    assert.match(docs.text, /swagger/i);
  });

  test("the console and /docs are never framed, sniffed or given a referrer", async () => {
    for (const path of [
      "/",
      "/console/console.js",
      "/docs/",
      "/docs/static/swagger-initializer.js",
    ]) {
      const res = await http("GET", path);
      assert.equal(res.status, 200, path);
      assert.deepEqual(
        ["x-frame-options", "x-content-type-options", "referrer-policy"].map((h) => res.headers[h]),
        ["DENY", "nosniff", "no-referrer"],
        path,
      );
      assert.match(String(res.headers["content-security-policy"]), /frame-ancestors 'none'/, path);
    }
  });

  test("an unknown route is 404 not_found", async () => {
    assertError(await http("GET", "/v2/buckets"), 404, "not_found");
  });

  test("append bytes in flight over the budget are a retryable 429", async () => {
    const small = await inProcessGateway([stack.star.address], {
      bodyLimit: 1024 * 1024,
      inflightAppendBytes: 1000,
      checkResponses: true,
    });
    const url = small.base;
    try {
      const { path } = await newStream();
      const body = JSON.stringify({ records: [{ body: "x".repeat(2000) }] });
      const held = new PassThrough();
      // Headers go out now; the rest of the body is held, so the first append stays in flight.
      const first = request(`${url}${path}/records`, {
        method: "POST",
        headers: { "content-type": "application/json", "content-length": String(body.length) },
        body: held,
      });
      // Bytes count as they arrive: 1500 of them, over the budget (a body alone is admitted).
      held.write(body.slice(0, 1500));
      // A probe that is admitted is refused as bad JSON, so it never appends.
      const refused = await waitFor(async () => {
        const res = await request(`${url}${path}/records`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: "{",
        });
        const text = await res.body.text();
        return res.statusCode === 429 ? { res, text } : false;
      });
      assert.equal(refused.res.headers["retry-after"], "1");
      const error = JSON.parse(refused.text);
      assert.equal(error.code, "resource_exhausted");
      assert.equal(error.retryable, true);
      held.end(body.slice(1500));
      const res = await first;
      assert.equal(res.statusCode, 200, await res.body.text());
      const tail = await http("GET", `${path}/records/tail`);
      assert.equal(tail.json.tail.seq_num, 1);
    } finally {
      await small.close();
    }
  });
});
