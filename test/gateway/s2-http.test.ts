// The S2 face over plain HTTP: bad input gets S2's error shape with the right status and
// appends nothing; S2's documented curl recipes work unchanged against the gateway (skipped
// without curl outside CI); and S2's access-token, location and metrics APIs answer 501 with why.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import { request } from "undici";
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
      /command record/,
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

  test("a missing stream and a missing basin are S2's not-found codes", async () => {
    assertS2Error(
      await http("GET", "/v1/streams/nope/records/tail", undefined, headers),
      404,
      "stream_not_found",
    );
    assertS2Error(await http("GET", "/v1/basins/no-such-basin-here"), 404, "basin_not_found");
  });

  test("s2s requests answer 501 for now", async () => {
    const res = await http("GET", "/v1/streams/s/records", undefined, {
      ...headers,
      "content-type": "s2s/proto",
    });
    assertS2Error(res, 501, "not_implemented", /s2s/);
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

  test("nova's own routes keep nova's error body", async () => {
    const res = await http("GET", "/v1/buckets/no-such-bucket");
    assert.equal(res.status, 404);
    assert.equal(res.json.code, "bucket_not_found");
    assert.equal(res.json.retryable, false);
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
