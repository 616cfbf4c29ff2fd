// The S2 face over plain HTTP: bad input gets S2's error shape with the right status and
// appends nothing; S2's documented curl recipes work unchanged against the gateway (skipped
// without curl outside CI); and S2's access-token, location and metrics APIs answer 501 with why.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import { request } from "undici";
import { s2Wire } from "../../src/gateway/s2/wire.ts";
import type { Gateway } from "../harness/gateway.ts";
import { http as httpAt } from "../harness/http.ts";
import { type Stack, startStack } from "../harness/stack.ts";
import { systemTool } from "../harness/system-tool.ts";

const curl = systemTool("/usr/bin/curl", "curl");
const run = promisify(execFile);

let stack: Stack<Gateway>;
let base: string;
const basin = `s2http-${process.pid}`;
const headers = { "s2-basin": basin };

before(async () => {
  stack = await startStack("nova-s2-http-", { gateway: { checkResponses: true } });
  base = stack.gw.base;
  assert.equal((await http("POST", "/v1/basins", { basin })).status, 201);
  assert.equal((await http("POST", "/v1/streams", { stream: "s" }, headers)).status, 201);
});
after(() => stack?.close());

const http = (method: string, path: string, body?: unknown, h: Record<string, string> = {}) =>
  httpAt(base, method, path, body, h);

async function tail(): Promise<number> {
  const res = await http("GET", "/v1/streams/s/records/tail", undefined, headers);
  assert.equal(res.status, 200, res.text);
  return res.json.tail.seq_num;
}

/** An S2 error: exactly `{code, message}`, the status S2 gives its code. */
function assertS2Error(
  res: { status: number; json: Record<string, unknown>; text: string },
  status: number,
  code: string,
  says?: RegExp,
) {
  assert.equal(res.status, status, res.text);
  assert.deepEqual(Object.keys(res.json).sort(), ["code", "message"], res.text);
  assert.equal(res.json.code, code, res.text);
  if (says) assert.match(String(res.json.message), says);
}

describe("bad input: S2's error shape, nothing appended", () => {
  const appendCases: [string, unknown, Record<string, string>, number, string, RegExp][] = [
    ["no records field", {}, {}, 422, "invalid", /records/],
    ["an empty batch", { records: [] }, {}, 422, "invalid", /at least one/],
    [
      "a header that is not a pair",
      { records: [{ headers: [["a"]] }] },
      {},
      422,
      "invalid",
      /headers\[0\]/,
    ],
    [
      "bad base64",
      { records: [{ body: "!!" }] },
      { "s2-format": "base64" },
      422,
      "invalid",
      /body/,
    ],
    [
      "an unknown s2-format",
      { records: [{ body: "a" }] },
      { "s2-format": "hex" },
      400,
      "bad_header",
      /s2-format/,
    ],
    [
      "an empty header name",
      { records: [{ headers: [["", "x"]], body: "a" }, { body: "b" }] },
      {},
      422,
      "invalid",
      /"x" is not a command; S2's are "fence" and "trim"/,
    ],
    [
      "a timestamp beyond int64",
      { records: [{ timestamp: "9223372036854775808" }] },
      {},
      422,
      "invalid",
      /timestamp/,
    ],
    [
      "an unknown command",
      { records: [{ headers: [["", "seal"]] }] },
      {},
      422,
      "invalid",
      /not a command/,
    ],
    [
      "a trim point of 7 bytes",
      { records: [{ headers: [["", "dHJpbQ=="]], body: "AAAAAAAAAA==" }] },
      { "s2-format": "base64" },
      422,
      "invalid",
      /8-byte/,
    ],
    [
      "an encryption key",
      { records: [{ body: "a" }] },
      { "s2-encryption-key": "k" },
      400,
      "bad_header",
      /encrypt/,
    ],
  ];
  for (const [name, body, extra, status, code, says] of appendCases) {
    test(`append: ${name}`, async () => {
      const before = await tail();
      const res = await http("POST", "/v1/streams/s/records", body, { ...headers, ...extra });
      assertS2Error(res, status, code, says);
      assert.equal(await tail(), before);
    });
  }

  test("append: a content-type that is neither JSON nor protobuf is bad_header", async () => {
    const before = await tail();
    const res = await request(`${base}/v1/streams/s/records`, {
      method: "POST",
      headers: { ...headers, "content-type": "text/plain" },
      body: "hello",
    });
    const text = await res.body.text();
    assertS2Error(
      { status: res.statusCode, json: JSON.parse(text), text },
      400,
      "bad_header",
      /application\/protobuf/,
    );
    assert.equal(await tail(), before);
  });

  test("append: JSON that does not parse is bad_json", async () => {
    const res = await http("POST", "/v1/streams/s/records", "{", headers);
    assertS2Error(res, 400, "bad_json");
  });

  test("append: protobuf that does not decode is bad_proto", async () => {
    const res = await request(`${base}/v1/streams/s/records`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/protobuf" },
      body: Buffer.from([0x0a, 0xff, 0xff]),
    });
    const text = await res.body.text();
    assertS2Error({ status: res.statusCode, json: JSON.parse(text), text }, 400, "bad_proto");
  });

  test("append: application/x-protobuf is protobuf too; Accept's first type picks the reply", async () => {
    const body = s2Wire.AppendInput.encode({
      records: [{ body: Buffer.from("proto"), headers: [] }],
    });
    const res = await request(`${base}/v1/streams/s/records`, {
      method: "POST",
      headers: {
        ...headers,
        "content-type": "application/x-protobuf",
        accept: "application/json, application/protobuf",
      },
      body,
    });
    const text = await res.body.text();
    assert.equal(res.statusCode, 200, text);
    assert.match(String(res.headers["content-type"]), /^application\/json/);
    const ack = JSON.parse(text);
    const read = await http(
      "GET",
      `/v1/streams/s/records?seq_num=${ack.start.seq_num}`,
      undefined,
      {
        ...headers,
        accept: "application/x-protobuf",
      },
    );
    assert.equal(read.status, 200);
    assert.equal(read.headers["content-type"], "application/protobuf");
  });

  test("no basin (no s2-basin header, an IP host) is bad_header", async () => {
    assertS2Error(await http("GET", "/v1/streams"), 400, "bad_header", /s2-basin/);
  });

  test("a basin name S2 would not take is refused", async () => {
    assertS2Error(await http("POST", "/v1/basins", { basin: "short" }), 422, "invalid", /8 to 48/);
    assertS2Error(await http("GET", "/v1/basins/UPPER-case-name"), 400, "bad_path");
  });

  test("read: two starts are invalid; a bad number is bad_query; past the tail is 416", async () => {
    const two = await http(
      "GET",
      "/v1/streams/s/records?seq_num=0&tail_offset=1",
      undefined,
      headers,
    );
    assertS2Error(two, 422, "invalid", /only one/);
    const bad = await http("GET", "/v1/streams/s/records?count=x", undefined, headers);
    assert.equal(bad.status, 400);
    assert.equal(bad.json.code, "bad_query");
    const past = await http("GET", "/v1/streams/s/records?seq_num=1000000", undefined, headers);
    assert.equal(past.status, 416, past.text);
    assert.equal(typeof past.json.tail.seq_num, "number");
  });

  test("unary reads as S2 answers them: 416 at the tail, nothing for count=0 or bytes=0", async () => {
    const read = async (stream: string, query: string) =>
      http("GET", `/v1/streams/${stream}/records?${query}`, undefined, headers);
    assert.equal((await http("POST", "/v1/streams", { stream: "unary" }, headers)).status, 201);
    // An empty stream: from seq_num 0, and from the tail (no start), and after its time.
    for (const query of ["seq_num=0", "", "tail_offset=0", "tail_offset=5", "timestamp=1"]) {
      const empty = await read("unary", query);
      assert.equal(empty.status, 416, `${query}: ${empty.text}`);
      assert.deepEqual(empty.json, { tail: { seq_num: 0, timestamp: 0 } });
    }
    // A time at or before the tail's finds no record, and is no 416 (S2 checks a time against
    // the tail's time only).
    const fromZero = await read("unary", "timestamp=0");
    assert.equal(fromZero.status, 200, fromZero.text);
    assert.deepEqual(fromZero.json.records, []);
    const appended = await http(
      "POST",
      "/v1/streams/unary/records",
      { records: [{ body: "a" }, { body: "b" }] },
      headers,
    );
    assert.equal(appended.status, 200, appended.text);
    const lastTime = appended.json.end.timestamp;
    // At the tail, given there or clamped to it, without wait: 416 with the tail.
    for (const query of ["seq_num=2", "", "seq_num=999999&clamp=true", "tail_offset=0"]) {
      const atTail = await read("unary", query);
      assert.equal(atTail.status, 416, `${query}: ${atTail.text}`);
      assert.deepEqual(atTail.json, { tail: { seq_num: 2, timestamp: lastTime } });
    }
    // Past the tail without clamp stays 416; records before it are read as before.
    assert.equal((await read("unary", "seq_num=3")).status, 416);
    const one = await read("unary", "seq_num=1");
    assert.equal(one.status, 200, one.text);
    assert.deepEqual(
      one.json.records.map((r: { seq_num: number }) => r.seq_num),
      [1],
    );
    // until cutting every record is an empty 200: the start was not the tail.
    const cut = await read("unary", `seq_num=0&until=${appended.json.start.timestamp}`);
    assert.equal(cut.status, 200, cut.text);
    assert.deepEqual(cut.json.records, []);
    // A time after the tail's is 416 with wait too, at once, unless clamped (it then waits).
    const after = await read("unary", `timestamp=${lastTime + 1000}&wait=20`);
    assert.equal(after.status, 416, after.text);
    const clamped = await read("unary", `timestamp=${lastTime + 1000}&clamp=true&wait=1`);
    assert.equal(clamped.status, 200, clamped.text);
    assert.deepEqual(clamped.json.records, []);
    // count=0 and bytes=0 ask for nothing, with wait too (at the tail it waits, as S2 does, for
    // a record or the wait's end), and still check the start.
    const waited = await read("unary", "seq_num=2&count=0&wait=1");
    assert.equal(waited.status, 200, waited.text);
    assert.deepEqual(waited.json.records, []);
    for (const query of ["seq_num=0&count=0", "seq_num=0&bytes=0", "seq_num=0&count=0&wait=5"]) {
      const nothing = await read("unary", query);
      assert.equal(nothing.status, 200, `${query}: ${nothing.text}`);
      assert.deepEqual(nothing.json.records, [], query);
      assert.equal(nothing.json.tail.seq_num, 2, query);
    }
    assert.equal((await read("unary", "seq_num=3&count=0")).status, 416);
    // At the tail, the start is checked before the limit: 416 though it asks for nothing.
    for (const query of ["seq_num=2&count=0", "count=0", "seq_num=2&count=0&until=99999999999"]) {
      assert.equal((await read("unary", query)).status, 416, query);
    }
    const future = `timestamp=${lastTime + 1000}&clamp=true&until=${lastTime + 5000}`;
    assert.equal((await read("unary", future)).status, 416, future);
  });

  test("check_tail creates a missing stream where reads do (create_stream_on_read), as S2 does", async () => {
    const creating = `s2http-onread-${process.pid}`;
    const made = await http("POST", "/v1/basins", {
      basin: creating,
      config: { create_stream_on_read: true },
    });
    assert.equal(made.status, 201, made.text);
    const tail = await http("GET", "/v1/streams/fresh/records/tail", undefined, {
      "s2-basin": creating,
    });
    assert.equal(tail.status, 200, tail.text);
    assert.deepEqual(tail.json, { tail: { seq_num: 0, timestamp: 0 } });
    const listed = await http("GET", "/v1/streams", undefined, { "s2-basin": creating });
    assert.deepEqual(
      listed.json.streams.map((s: { name: string }) => s.name),
      ["fresh"],
    );
    // Elsewhere a missing stream is 404 still.
    const missing = await http("GET", "/v1/streams/none/records/tail", undefined, headers);
    assertS2Error(missing, 404, "stream_not_found");
  });

  test("a record that meters over S2's 1 MiB read cap is still read, alone, and the next after it", async () => {
    assert.equal((await http("POST", "/v1/streams", { stream: "big" }, headers)).status, 201);
    // nova's 1 MiB is of content; S2 meters 8 + 2 per header more.
    const body = "x".repeat(1024 * 1024 - 2);
    const nova = await http("POST", `/v1/buckets/${basin}/streams/big/records`, {
      records: [{ body, headers: [{ name: "h", value: "v" }] }, { body: "small" }],
    });
    assert.equal(nova.status, 200, nova.text);
    const first = await http("GET", "/v1/streams/big/records?seq_num=0", undefined, headers);
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(
      first.json.records.map((r: { seq_num: number; body: string }) => [r.seq_num, r.body.length]),
      [[0, body.length]],
    );
    const next = await http("GET", "/v1/streams/big/records?seq_num=1", undefined, headers);
    assert.deepEqual(
      next.json.records.map((r: { body: string }) => r.body),
      ["small"],
    );
    // A bound the client gave itself still leaves it out.
    const bounded = await http(
      "GET",
      "/v1/streams/big/records?seq_num=0&bytes=1000",
      undefined,
      headers,
    );
    assert.deepEqual(bounded.json.records, []);
  });

  test("a list limit above 1000 is clamped to 1000, as S2 does", async () => {
    for (const path of ["/v1/basins?limit=1500", "/v1/streams?limit=18446744073709551615"]) {
      const res = await http("GET", path, undefined, headers);
      assert.equal(res.status, 200, `${path}: ${res.text}`);
    }
    assertS2Error(
      await http("GET", "/v1/streams?limit=18446744073709551616", undefined, headers),
      400,
      "bad_query",
      /limit/,
    );
  });

  test("a list's prefix and start_after are held to S2's name rules: bad_query past them", async () => {
    const long = "s".repeat(513);
    for (const path of [
      `/v1/streams?prefix=${long}`,
      `/v1/streams?start_after=${long}`,
      "/v1/basins?prefix=UPPER",
      "/v1/basins?start_after=-dash",
      `/v1/basins?prefix=${"b".repeat(49)}`,
    ]) {
      const field = path.includes("prefix") ? "prefix" : "start_after";
      assertS2Error(
        await http("GET", path, undefined, headers),
        400,
        "bad_query",
        new RegExp(field),
      );
    }
    // Cut short and empty are names' prefixes: listed as asked.
    for (const path of [
      `/v1/streams?prefix=${"s".repeat(512)}`,
      "/v1/streams?prefix=&start_after=",
      "/v1/basins?prefix=a&start_after=ab-",
    ]) {
      assert.equal((await http("GET", path, undefined, headers)).status, 200, path);
    }
  });

  test("a missing stream and a missing basin are S2's not-found codes", async () => {
    assertS2Error(
      await http("GET", "/v1/streams/nope/records/tail", undefined, headers),
      404,
      "stream_not_found",
    );
    assertS2Error(await http("GET", "/v1/basins/no-such-basin-here"), 404, "basin_not_found");
  });

  test("a basin or stream made twice is 409 resource_already_exists", async () => {
    assertS2Error(await http("POST", "/v1/basins", { basin }), 409, "resource_already_exists");
    assertS2Error(
      await http("POST", "/v1/streams", { stream: "s" }, headers),
      409,
      "resource_already_exists",
    );
  });

  test("an append the stream's throughput cap would hold too long is 429 rate_limited", async () => {
    assert.equal((await http("POST", "/v1/streams", { stream: "capped" }, headers)).status, 201);
    // The cap is nova's (S2 has none): set through nova's API on the same stream.
    const capped = `/v1/buckets/${basin}/streams/capped`;
    const patched = await http("PATCH", capped, { throughput_max_bytes_per_second: 100 });
    assert.equal(patched.status, 200, patched.text);
    const append = (bytes: number) =>
      http(
        "POST",
        "/v1/streams/capped/records",
        { records: [{ body: "x".repeat(bytes) }] },
        headers,
      );
    // A full bucket takes 1000 bytes at once and is 900 in debt: the next waits about 10 s.
    assert.equal((await append(1000)).status, 200);
    const over = await append(100);
    assertS2Error(over, 429, "rate_limited", /throughput cap/);
    assert.ok(Number(over.headers["retry-after"]) >= 1, "Retry-After");
  });

  test("access tokens, locations and metrics are 501 with the reason", async () => {
    assertS2Error(
      await http("GET", "/v1/access-tokens"),
      501,
      "not_implemented",
      /POST \/v1\/tokens/,
    );
    assertS2Error(await http("GET", "/v1/locations"), 501, "not_implemented");
    assertS2Error(await http("GET", `/v1/metrics/${basin}`), 501, "not_implemented", /Prometheus/);
  });

  test("a command record written through S2 reads through nova's API with its empty header name, as documented", async () => {
    const name = "cmd";
    assert.equal((await http("POST", "/v1/streams", { stream: name }, headers)).status, 201);
    const appended = await http(
      "POST",
      `/v1/streams/${name}/records`,
      { records: [{ headers: [["", "fence"]], body: "tok" }, { body: "data" }] },
      headers,
    );
    assert.equal(appended.status, 200, appended.text);
    // checkResponses: a read record that broke its documented schema would be a 500.
    const read = await http("GET", `/v1/buckets/${basin}/streams/${name}/records?seq_num=0`);
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(
      read.json.records.map((r: { headers: unknown; body: string }) => [r.headers, r.body]),
      [
        [[{ name: "", value: "fence" }], "tok"],
        [[], "data"],
      ],
    );
    // nova's own appends still refuse an empty header name.
    const refused = await http("POST", `/v1/buckets/${basin}/streams/${name}/records`, {
      records: [{ headers: [{ name: "", value: "fence" }], body: "x" }],
    });
    assert.equal(refused.status, 400, refused.text);
  });

  test("a path refused before routing, or matching no route, is S2's error on S2's paths", async () => {
    assertS2Error(
      await http("GET", "/v1/streams/%FF/records/tail", undefined, headers),
      400,
      "bad_path",
      /percent-encoded UTF-8/,
    );
    assertS2Error(await http("GET", "/v1/basins/%FF"), 400, "bad_path");
    assertS2Error(
      await http("GET", "/v1/streams/s/records/nowhere", undefined, headers),
      400,
      "bad_path",
      /no route for GET \/v1\/streams\/s\/records\/nowhere/,
    );
  });

  test("nova's own routes keep nova's error body", async () => {
    const res = await http("GET", "/v1/buckets/no-such-bucket");
    assert.equal(res.status, 404);
    assert.equal(res.json.code, "bucket_not_found");
    assert.equal(res.json.retryable, false);
    for (const [path, status, code] of [
      ["/v1/buckets/%FF", 400, "bad_path"],
      ["/v1/nowhere", 404, "not_found"],
      ["/v1/streamsx", 404, "not_found"],
    ] as const) {
      const refused = await http("GET", path);
      assert.equal(refused.status, status, refused.text);
      assert.equal(refused.json.code, code, refused.text);
      assert.equal(refused.json.retryable, false, refused.text);
    }
  });
});

describe("batching on S2's face", () => {
  /** The wait nova's API shows for a bucket, or for a stream (`bucket/streams/key`). */
  const windowOf = async (path: string) => {
    const res = await http("GET", `/v1/buckets/${path}`);
    assert.equal(res.status, 200, res.text);
    return res.json.stream?.batch_max_delay_ms ?? res.json.default_batch_max_delay_ms;
  };

  test("a basin made on S2's face has no server-side batching wait, nor have its streams", async () => {
    assert.equal(await windowOf(basin), 0);
    assert.equal(await windowOf(`${basin}/streams/s`), 0);
    const ensured = `s2http-ensured-${process.pid}`;
    const put = await http("PUT", `/v1/basins/${ensured}`, {
      config: { default_stream_config: { storage_class: "express" } },
    });
    assert.equal(put.status, 201, put.text);
    assert.equal(await windowOf(ensured), 0);
    // A creation token longer than nova keeps is refused, before anything is made.
    const token = { "s2-request-token": "t".repeat(257) };
    const long = await http("POST", "/v1/basins", { basin: `s2http-tok-${process.pid}` }, token);
    assertS2Error(long, 400, "bad_header", /s2-request-token/);
    const latin1 = { "s2-request-token": "\xff" };
    const garbled = await http(
      "POST",
      "/v1/basins",
      { basin: `s2http-tok-${process.pid}` },
      latin1,
    );
    assertS2Error(garbled, 400, "bad_header", /s2-request-token: is not UTF-8 text/);
    const gzip = { "content-encoding": "gzip" };
    const zipped = await http("POST", "/v1/basins", { basin: `s2http-gz-${process.pid}` }, gzip);
    assertS2Error(zipped, 400, "bad_header", /content-encoding "gzip" is not supported/);
    // A location that is not a string is refused, not dropped.
    for (const [method, path, body] of [
      ["POST", "/v1/basins", { basin: `s2http-loc-${process.pid}`, location: 5 }],
      ["PUT", `/v1/basins/s2http-loc2-${process.pid}`, { location: { at: "x" } }],
    ] as const) {
      assertS2Error(await http(method, path, body), 422, "invalid");
    }
  });

  test("a bucket S2 could not name is left out of the basin list; its page goes on to the next", async () => {
    const short = `sh${process.pid % 1000}`;
    const long = `${short}-with-an-s2-name`;
    for (const name of [short, long]) {
      assert.equal((await http("POST", "/v1/buckets", { name })).status, 201);
    }
    // The star's first page of one holds only the short name: the listing goes on past it.
    const listed = await http("GET", `/v1/basins?prefix=${short}&limit=1`);
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(
      listed.json.basins.map((b: { name: string }) => b.name),
      [long],
    );
    assert.equal(listed.json.has_more, false);
  });

  test("an ensure (PUT) of what exists changes only what its body gives; of what does not, makes it", async () => {
    const config = { delete_on_empty: { min_age_secs: 600 }, retention_policy: { age: 3600 } };
    const made = await http("POST", "/v1/streams", { stream: "ensured", config }, headers);
    assert.equal(made.status, 201, made.text);
    const put = await http("PUT", "/v1/streams/ensured", { delete_on_empty: {} }, headers);
    assert.equal(put.status, 200, put.text);
    assert.equal(put.headers["s2-provision-result"], "updated");
    const kept = await http("GET", "/v1/streams/ensured", undefined, headers);
    assert.deepEqual(kept.json.delete_on_empty, { min_age_secs: 600 });
    assert.deepEqual(kept.json.retention_policy, { age: 3600 });
    // A null cannot say "the default" to what exists, alone or beside another setting.
    for (const body of [{ retention_policy: null }, { timestamping: { mode: null } }]) {
      const refused = await http("PUT", "/v1/streams/ensured", body, headers);
      assert.equal(refused.status, 422, `${JSON.stringify(body)}: ${refused.text}`);
    }
    const noop = await http("PUT", "/v1/streams/ensured", {}, headers);
    assert.equal(noop.headers["s2-provision-result"], "noop");
    const fresh = await http("PUT", "/v1/streams/ensured-new", { delete_on_empty: {} }, headers);
    assert.equal(fresh.status, 201, fresh.text);
    const defaults = await http("GET", "/v1/streams/ensured-new", undefined, headers);
    assert.deepEqual(defaults.json.delete_on_empty, { min_age_secs: 0 });
    // A basin's defaults likewise.
    const other = `s2http-ensure-${process.pid}`;
    const defaultsGiven = { default_stream_config: config };
    assert.equal(
      (await http("POST", "/v1/basins", { basin: other, config: defaultsGiven })).status,
      201,
    );
    const basinPut = await http("PUT", `/v1/basins/${other}`, {
      config: { default_stream_config: { delete_on_empty: {} } },
    });
    assert.equal(basinPut.status, 200, basinPut.text);
    const nullLocation = await http("PUT", `/v1/basins/${other}`, { location: null });
    assert.equal(nullLocation.status, 422, nullLocation.text);
    const basinKept = await http("GET", `/v1/basins/${other}`);
    assert.deepEqual(basinKept.json.default_stream_config.delete_on_empty, { min_age_secs: 600 });
    assert.deepEqual(basinKept.json.default_stream_config.retention_policy, { age: 3600 });
  });

  test("S2's reconfigurations leave the wait nova's API set", async () => {
    const name = `s2http-nova-made-${process.pid}`;
    const made = await http("POST", "/v1/buckets", { name, default_batch_max_delay_ms: 7 });
    assert.equal(made.status, 201, made.text);
    const patch = await http("PATCH", `/v1/basins/${name}`, {
      default_stream_config: { storage_class: "express" },
    });
    assert.equal(patch.status, 200, patch.text);
    const put = await http("PUT", `/v1/basins/${name}`, {
      config: { default_stream_config: { storage_class: "standard" } },
    });
    assert.equal(put.status, 200, put.text);
    assert.equal(await windowOf(name), 7);
  });
});

describe("read sessions over SSE", () => {
  let streams = 0;
  async function streamWith(records: unknown[]): Promise<string> {
    const name = `sse-${++streams}`;
    assert.equal((await http("POST", "/v1/streams", { stream: name }, headers)).status, 201);
    const res = await http("POST", `/v1/streams/${name}/records`, { records }, headers);
    assert.equal(res.status, 200, res.text);
    return name;
  }
  async function session(path: string, extra: Record<string, string> = {}) {
    const res = await request(`${base}${path}`, {
      headers: { ...headers, accept: "text/event-stream", ...extra },
    });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers["content-type"], "text/event-stream");
    return res.body.text();
  }
  const batches = (text: string) =>
    [...text.matchAll(/event: batch\nid: (\S+)\ndata: (.*)\n\n/g)].map((m) => ({
      id: m[1],
      bodies: JSON.parse(m[2] as string).records.map((r: { body: string }) => r.body),
    }));

  test("bytes is a bound in S2's metered bytes, and the id counts them", async () => {
    // "abcd": 8 + 4 = 12 metered bytes each; 30 takes two.
    const name = await streamWith([{ body: "abcd" }, { body: "abcd" }, { body: "abcd" }]);
    const text = await session(`/v1/streams/${name}/records?seq_num=0&bytes=30`);
    assert.deepEqual(batches(text), [{ id: "1,2,24", bodies: ["abcd", "abcd"] }]);
    assert.match(text, /data: \[DONE\]\n\n$/);
  });

  test("Last-Event-ID resumes after the record it names, with the bounds reduced", async () => {
    const name = await streamWith([{ body: "a" }, { body: "b" }, { body: "c" }, { body: "d" }]);
    const text = await session(`/v1/streams/${name}/records?seq_num=0&count=3`, {
      "last-event-id": "0,1,9",
    });
    assert.deepEqual(batches(text), [{ id: "2,2,18", bodies: ["b", "c"] }]);
    assert.match(text, /data: \[DONE\]\n\n$/);
  });

  test("until stops before the first record at or after it", async () => {
    // One append each: nova gives a batch's records one time.
    const name = await streamWith([{ body: "t100", timestamp: 100 }]);
    for (const t of [200, 300]) {
      const res = await http(
        "POST",
        `/v1/streams/${name}/records`,
        { records: [{ body: `t${t}`, timestamp: t }] },
        headers,
      );
      assert.equal(res.status, 200, res.text);
    }
    const text = await session(`/v1/streams/${name}/records?seq_num=0&until=250`);
    assert.deepEqual(
      batches(text).flatMap((b) => b.bodies),
      ["t100", "t200"],
    );
    assert.match(text, /data: \[DONE\]\n\n$/);
  });

  test("with wait, a caught-up session pings, then ends when nothing came for that long", async () => {
    const name = await streamWith([{ body: "only" }]);
    const text = await session(`/v1/streams/${name}/records?seq_num=0&wait=1`);
    assert.deepEqual(
      batches(text).flatMap((b) => b.bodies),
      ["only"],
    );
    assert.match(
      text,
      /event: ping\ndata: \{"timestamp":\d+,"tail":\{"seq_num":1,"timestamp":\d+\}\}\n\n/,
    );
    assert.match(text, /data: \[DONE\]\n\n$/);
  });

  test("a stream closed through nova's API reads as one at its tail: no error, [DONE] on wait", async () => {
    const name = await streamWith([{ body: "last" }]);
    const closed = await http("POST", `/v1/buckets/${basin}/streams/${name}/close`);
    assert.equal(closed.status, 200, closed.text);
    const text = await session(`/v1/streams/${name}/records?seq_num=0&wait=1`);
    assert.deepEqual(
      batches(text).flatMap((b) => b.bodies),
      ["last"],
    );
    assert.doesNotMatch(text, /event: error/);
    assert.match(text, /event: ping\n/);
    assert.match(text, /data: \[DONE\]\n\n$/);
  });

  test("count=0 or bytes=0 reads nothing: the session ends with [DONE] (an SDK retry sends it)", async () => {
    const name = await streamWith([{ body: "a" }, { body: "b" }]);
    for (const bound of ["count=0", "bytes=0", "count=0&wait=1"]) {
      const text = await session(`/v1/streams/${name}/records?seq_num=0&${bound}`);
      assert.deepEqual(batches(text), [], bound);
      assert.match(text, /data: \[DONE\]\n\n$/, bound);
    }
    // Resumed with the bounds spent: nothing more, though records follow.
    const text = await session(`/v1/streams/${name}/records?seq_num=0&count=1`, {
      "last-event-id": "0,1,9",
    });
    assert.deepEqual(batches(text), []);
  });

  test("S2's 416 before a session starts: past the tail, or at it bounded without wait", async () => {
    const name = await streamWith([{ body: "a" }, { body: "b" }]);
    const sse = (query: string, extra: Record<string, string> = {}) =>
      http("GET", `/v1/streams/${name}/records?${query}`, undefined, {
        ...headers,
        accept: "text/event-stream",
        ...extra,
      });
    for (const query of [
      "seq_num=2&count=5",
      "seq_num=2&count=0",
      "seq_num=2&until=99999999999999",
      "seq_num=9&clamp=true&count=1",
      "count=1",
      "timestamp=99999999999999",
      "timestamp=99999999999999&count=1&wait=5",
    ]) {
      const res = await sse(query);
      assert.equal(res.status, 416, `${query}: ${res.text}`);
      assert.equal(res.json.tail.seq_num, 2, query);
    }
    // Resumed past the tail, with clamp kept: from the tail, which it may not wait at.
    const resumed = await sse("seq_num=0&count=5&clamp=true", { "last-event-id": "5,1,9" });
    assert.equal(resumed.status, 416, resumed.text);
    // A time after the tail's, clamped, follows from the tail; so does a bounded one with wait.
    for (const query of [
      "timestamp=99999999999999&clamp=true&wait=1",
      "seq_num=2&count=5&wait=1",
    ]) {
      const text = await session(`/v1/streams/${name}/records?${query}`);
      assert.match(text, /event: ping\n/, query);
      assert.match(text, /data: \[DONE\]\n\n$/, query);
    }
  });

  test("a bad Last-Event-ID is bad_header", async () => {
    const res = await http("GET", "/v1/streams/s/records", undefined, {
      ...headers,
      accept: "text/event-stream",
      "last-event-id": "x",
    });
    assertS2Error(res, 400, "bad_header", /last-event-id/);
  });

  test("a unary read with wait answers once a record comes", async () => {
    const name = await streamWith([{ body: "first" }]);
    const reading = http(
      "GET",
      `/v1/streams/${name}/records?seq_num=1&wait=10`,
      undefined,
      headers,
    );
    await http("POST", `/v1/streams/${name}/records`, { records: [{ body: "second" }] }, headers);
    const res = await reading;
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      res.json.records.map((r: { body: string }) => r.body),
      ["second"],
    );
  });
});

describe("S2's curl recipes", { skip: curl.skip }, () => {
  const curlJson = async (args: string[]) => {
    const { stdout } = await run(curl.path, ["-sS", "--fail-with-body", ...args]);
    return stdout;
  };
  const common = () => ["-H", `s2-basin: ${basin}`, "-H", "Authorization: Bearer token"];

  test("append, read, tail and an SSE session with curl", async () => {
    const ack = JSON.parse(
      await curlJson([
        ...common(),
        "-X",
        "POST",
        "-H",
        "Content-Type: application/json",
        "-d",
        JSON.stringify({ records: [{ body: "from curl", headers: [["k", "v"]] }] }),
        `${base}/v1/streams/s/records`,
      ]),
    );
    const seq = ack.start.seq_num;
    assert.equal(ack.end.seq_num, seq + 1);
    const read = JSON.parse(
      await curlJson([...common(), `${base}/v1/streams/s/records?seq_num=${seq}&count=1`]),
    );
    assert.deepEqual(
      read.records.map((r: { body: string; headers: string[][] }) => [r.body, r.headers]),
      [["from curl", [["k", "v"]]]],
    );
    const checked = JSON.parse(await curlJson([...common(), `${base}/v1/streams/s/records/tail`]));
    assert.equal(checked.tail.seq_num, seq + 1);
    const sse = await curlJson([
      ...common(),
      "-N",
      "-H",
      "Accept: text/event-stream",
      `${base}/v1/streams/s/records?seq_num=${seq}&count=1`,
    ]);
    assert.match(sse, new RegExp(`event: batch\\nid: ${seq},1,${8 + 2 + 2 + 9}\\ndata: `));
    assert.match(sse, /data: \[DONE\]\n\n$/);
  });
});
