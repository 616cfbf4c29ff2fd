// fast-check over real HTTP, to a real star process: whatever the append body, query string or
// path, the gateway never answers 5xx (its error table has a 4xx for every bad input), and a
// 4xx never appends anything (the stream's tail is the same before and after). Responses are
// also checked against their documented schemas (checkResponses): a mismatch would be a 500.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import fc from "fast-check";
import { request } from "undici";
import type { Gateway } from "../harness/gateway.ts";
import { type Stack, startStack } from "../harness/stack.ts";

// Two cores are shared by the star, the gateway and this process: modest runs.
const RUNS = Number(process.env.FUZZ_RUNS ?? 60);

let stack: Stack<Gateway> | undefined;
let base = "";
const bucket = `fuzz-${process.pid}`;
const stream = `/v1/buckets/${bucket}/streams/s`;

before(async () => {
  stack = await startStack("nova-fuzz-", {
    gateway: { bodyLimit: 256 * 1024, checkResponses: true },
  });
  base = stack.gw.base;
  const created = await send("POST", "/v1/buckets", json({ name: bucket }));
  assert.equal(created.status, 201, created.text);
  const s = await send("POST", `/v1/buckets/${bucket}/streams`, json({ key: "s" }));
  assert.equal(s.status, 201, s.text);
});

after(() => stack?.close());

interface Body {
  contentType?: string;
  payload: string | Uint8Array;
}

const json = (value: unknown): Body => ({
  contentType: "application/json",
  payload: JSON.stringify(value),
});

async function send(method: string, path: string, body?: Body) {
  const headers: Record<string, string> = {};
  if (body?.contentType !== undefined) headers["content-type"] = body.contentType;
  const res = await request(base + path, {
    method: method as "GET",
    headers,
    body: body?.payload,
  });
  return { status: res.statusCode, text: await res.body.text() };
}

async function tail(): Promise<bigint> {
  const res = await send("GET", `${stream}/records/tail?int64=string`);
  assert.equal(res.status, 200, res.text);
  return BigInt(JSON.parse(res.text).tail.seq_num);
}

/** Sends, then checks: no 5xx; a 4xx left the tail alone; a 200 append moved it by its batch. */
async function sendChecked(method: string, path: string, body?: Body) {
  const before = await tail();
  const res = await send(method, path, body);
  const what = `${method} ${path} ${String(body?.payload).slice(0, 200)} -> ${res.status} ${res.text.slice(0, 300)}`;
  assert.ok(res.status < 500, what);
  const now = await tail();
  if (res.status >= 400) {
    assert.equal(now, before, `a ${res.status} appended: ${what}`);
    const error = JSON.parse(res.text);
    assert.equal(typeof error.code, "string", what);
    assert.equal(typeof error.message, "string", what);
  } else if (method === "POST" && path.startsWith(`${stream}/records`)) {
    const ack = JSON.parse(res.text.replace(/(-?\d{16,})/g, '"$1"'));
    const appended = BigInt(ack.end.seq_num) - BigInt(ack.start.seq_num);
    assert.equal(now, before + appended, what);
  } else {
    assert.equal(now, before, what);
  }
  return res;
}

const integerLike = fc.oneof(
  fc.integer(),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
  fc.double(),
  fc.constantFrom("1e3", "-0", "01", " 1", "", "NaN"),
);
const anyValue = fc.oneof(fc.jsonValue(), integerLike, fc.string());
const text = fc.oneof(fc.string(), fc.string({ unit: "binary" }), fc.base64String());
const header = fc.oneof(
  fc.record({ name: text, value: text }),
  fc.tuple(text, text),
  fc.array(text, { maxLength: 3 }),
  anyValue,
  fc.dictionary(fc.string(), anyValue, { maxKeys: 3 }),
);
const record = fc.oneof(
  fc.record(
    {
      body: fc.oneof(text, anyValue),
      headers: fc.oneof(fc.array(header, { maxLength: 3 }), anyValue),
      timestamp_ms: integerLike,
    },
    { requiredKeys: [] },
  ),
  anyValue,
);
/** Mostly near-valid AppendInputs, with every field sometimes wrong or extra. */
const appendInput = fc.record(
  {
    records: fc.oneof(fc.array(record, { maxLength: 4 }), anyValue),
    match_seq_num: integerLike,
    fencing_token: fc.oneof(text, anyValue),
    extra: anyValue,
  },
  { requiredKeys: [] },
);
const contentType = fc.option(
  fc.constantFrom(
    "application/json",
    "application/json; charset=utf-8",
    "text/plain",
    "application/octet-stream",
    "",
  ),
  { nil: undefined },
);
const appendBody: fc.Arbitrary<Body> = fc.oneof(
  fc.record({
    contentType: fc.constant("application/json"),
    payload: appendInput.map((v) => JSON.stringify(v)),
  }),
  fc.record({ contentType, payload: fc.jsonValue().map((v) => JSON.stringify(v)) }),
  fc.record({ contentType, payload: fc.string() }),
  fc.record({ contentType, payload: fc.uint8Array({ maxLength: 200 }) }),
  fc
    .bigInt({ min: 2n ** 53n, max: 2n ** 80n })
    .map((n) =>
      json({ records: [{ body: "x" }] })
        .payload.toString()
        .replace("}]", `,"timestamp_ms":${n}}]`),
    )
    .map((payload) => ({ contentType: "application/json", payload })),
);

test("append bodies never yield a 5xx, and a 4xx appends nothing", async () => {
  const query = fc.constantFrom("", "?format=base64", "?format=raw", "?int64=string");
  await fc.assert(
    fc.asyncProperty(appendBody, query, async (body, q) => {
      await sendChecked("POST", `${stream}/records${q}`, body);
    }),
    { numRuns: RUNS },
  );
});

const PARAMS = [
  "seq_num",
  "timestamp_ms",
  "tail_offset",
  "count",
  "bytes",
  "until_ms",
  "clamp",
  "wait",
  "format",
  "int64",
  "prefix",
  "start_after",
  "limit",
  "access_token",
];
const queryValue = fc.oneof(
  fc.string(),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
  fc.constantFrom("true", "false", "raw", "base64", "string", "number", "0", "60", "61"),
);
/** Raw query text: known and unknown names, repeats, bad percent-escapes. */
const queryString = fc
  .array(
    fc.oneof(
      fc
        .tuple(fc.constantFrom(...PARAMS), queryValue)
        .map(([k, v]) => `${k}=${encodeURIComponent(v)}`),
      fc
        .tuple(fc.string(), fc.string())
        .map(([k, v]) => `${encodeURIComponent(k)}=${v.replace(/[#\s]/g, "")}`),
      fc.constantFrom("%", "%FF", "%ED%A0%80", "a=%zz", "=", "&&", "clamp"),
    ),
    { maxLength: 4 },
  )
  .map((parts) => (parts.length === 0 ? "" : `?${parts.join("&")}`));

test("query strings never yield a 5xx, and a 4xx appends nothing", async () => {
  const target = fc.constantFrom(
    ["GET", `${stream}/records`],
    ["GET", `${stream}/records/tail`],
    ["GET", `${stream}`],
    ["GET", `/v1/buckets/${bucket}/streams`],
    ["GET", "/v1/buckets"],
    ["POST", `${stream}/records`],
  );
  await fc.assert(
    fc.asyncProperty(target, queryString, async ([method, path], q) => {
      const body = method === "POST" ? json({ records: [{ body: "q" }] }) : undefined;
      await sendChecked(method, `${path}${q}`, body);
    }),
    { numRuns: RUNS },
  );
});

/** A path segment: well-formed names, arbitrary text percent-encoded, or raw bad escapes. */
const segment = fc.oneof(
  fc.stringMatching(/^[a-z0-9-]{1,50}$/),
  fc.string({ unit: "binary", maxLength: 30 }).map(encodeURIComponent),
  fc.string({ maxLength: 600 }).map(encodeURIComponent),
  fc.constantFrom("", "%", "%FF", "%ED%A0%80", "..", ".", "%2F", "a%00b", "s"),
);

test("paths never yield a 5xx, and a 4xx appends nothing", async () => {
  const suffix = fc.constantFrom("", "/records", "/records/tail", "/trim", "/fence", "/x");
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom("GET", "POST"),
      segment,
      segment,
      suffix,
      async (method, b, key, rest) => {
        // Our own stream is the one whose tail is watched; leave it to the other properties.
        fc.pre(b !== bucket);
        const path = `/v1/buckets/${b}/streams/${key}${rest}`;
        const body = method === "POST" ? json({ records: [{ body: "p" }] }) : undefined;
        await sendChecked(method, path, body);
      },
    ),
    { numRuns: RUNS },
  );
});
