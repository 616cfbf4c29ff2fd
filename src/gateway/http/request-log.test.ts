import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import Fastify from "fastify";
import pino from "pino";
import { redactCredentials, requestLogging } from "./request-log.ts";

test("redactCredentials removes every access_token value, however the name is encoded", () => {
  const cases: [string, string][] = [
    ["/v1/x", "/v1/x"],
    ["/v1/x?seq_num=0", "/v1/x?seq_num=0"],
    ["/v1/x?access_token=abc.def.ghi", "/v1/x?access_token=[redacted]"],
    [
      "/v1/x?seq_num=0&access_token=abc&int64=string",
      "/v1/x?seq_num=0&access_token=[redacted]&int64=string",
    ],
    ["/v1/x?access%5Ftoken=abc", "/v1/x?access%5Ftoken=[redacted]"],
    [
      "/v1/x?access_token=a&access_token=b",
      "/v1/x?access_token=[redacted]&access_token=[redacted]",
    ],
    ["/v1/x?access_token", "/v1/x?access_token=[redacted]"],
    ["/v1/x?access_tokens=keep&%zz=keep", "/v1/x?access_tokens=keep&%zz=keep"],
    [
      "/v1/x?ACCESS_TOKEN=abc&Access_Token=d",
      "/v1/x?ACCESS_TOKEN=[redacted]&Access_Token=[redacted]",
    ],
  ];
  for (const [url, redacted] of cases) assert.equal(redactCredentials(url), redacted);
});

test("other credentials a client may put in a URL are redacted too; the gateway's parameters are not", () => {
  const cases: [string, string][] = [
    ["/v1/x?token=opaque&seq_num=1", "/v1/x?token=[redacted]&seq_num=1"],
    ["/v1/x?api_key=ops&secret=s3cr3t", "/v1/x?api_key=[redacted]&secret=[redacted]"],
    [
      "/v1/x?X-Amz-Credential=AKIA%2F1&X-Amz-Signature=abc&X-Amz-Expires=60",
      "/v1/x?X-Amz-Credential=[redacted]&X-Amz-Signature=[redacted]&X-Amz-Expires=60",
    ],
    ["/v1/x?PASSWORD=hunter2", "/v1/x?PASSWORD=[redacted]"],
    [
      "/v1/x?seq_num=0&count=5&format=base64&live=sse&cursor=abc&offset=-1",
      "/v1/x?seq_num=0&count=5&format=base64&live=sse&cursor=abc&offset=-1",
    ],
  ];
  for (const [url, redacted] of cases) assert.equal(redactCredentials(url), redacted);
});

test("a token's shape is redacted wherever it is: a misspelt name, inside another value", () => {
  const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl-_x";
  const cases: [string, string][] = [
    [`/v1/x?acess_token=${jwt}`, "/v1/x?acess_token=[redacted]"],
    [
      `/v1/subscribe?stream=b/k;access_token=${jwt}&x=1`,
      "/v1/subscribe?stream=b/k;access_token=[redacted]&x=1",
    ],
    [`/v1/x?seq_num=0;access_token=${jwt}`, "/v1/x?seq_num=0;access_token=[redacted]"],
    [`/v1/${jwt}/x`, "/v1/[redacted]/x"],
    // Percent-encoded, its dots hidden from a plain match.
    [`/v1/x?tokn=${jwt.replaceAll(".", "%2E")}&a=1`, "/v1/x?tokn=[redacted]&a=1"],
    // Not tokens: text that merely holds `eyJ` and dots.
    ["/v1/buckets/b/streams/turkeyJerky.v1.json", "/v1/buckets/b/streams/turkeyJerky.v1.json"],
    ["/v1/x?k=eyJ.a.b&j=eyJa.b.c", "/v1/x?k=eyJ.a.b&j=eyJa.b.c"],
  ];
  for (const [url, redacted] of cases) assert.equal(redactCredentials(url), redacted);
});

test("no access_token value survives, and the other parameters are untouched", () => {
  fc.assert(
    fc.property(
      fc.array(
        fc.tuple(
          fc.constantFrom("seq_num", "count", "x"),
          // Not shaped like a token, which is redacted wherever it is.
          fc.string().filter((v) => !v.includes("eyJ")),
        ),
        { maxLength: 4 },
      ),
      fc.string({ minLength: 8 }).map((s) => `secret-${s}`),
      fc.nat(4),
      (others, token, at) => {
        const params = others.map(([k, v]) => `${k}=${encodeURIComponent(v)}`);
        params.splice(Math.min(at, params.length), 0, `access_token=${encodeURIComponent(token)}`);
        const out = redactCredentials(`/v1/r?${params.join("&")}`);
        assert.ok(!out.includes(encodeURIComponent(token)));
        const kept = new URLSearchParams(out.split("?")[1]);
        kept.delete("access_token");
        assert.deepEqual([...kept], others);
      },
    ),
  );
});

/** A Fastify app logging as the gateway does, at `level`, into the returned lines. */
function loggedApp(level: string) {
  const lines: Record<string, unknown>[] = [];
  const logger = pino(
    { level },
    { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) },
  );
  const app = Fastify(requestLogging(logger));
  app.get("/ok", async () => ({ ok: true }));
  app.get("/fails", async () => {
    throw new Error("boom");
  });
  return { app, lines };
}

test("at info a request is one line as it ends: its fields, the status and the time", async (t) => {
  const { app, lines } = loggedApp("info");
  t.after(() => app.close());
  const res = await app.inject({
    method: "GET",
    url: "/ok?access_token=secret-1",
    headers: { authorization: "Bearer secret-2" },
  });
  assert.equal(res.statusCode, 200);
  assert.equal(lines.length, 1, JSON.stringify(lines));
  const [line] = lines;
  assert.equal(line?.msg, "request completed");
  assert.equal(line?.level, 30);
  assert.deepEqual(line?.req, {
    method: "GET",
    url: "/ok?access_token=[redacted]",
    host: "localhost:80",
    remoteAddress: "127.0.0.1",
  });
  assert.deepEqual(line?.res, { statusCode: 200 });
  assert.equal(typeof line?.responseTime, "number");
  assert.ok(!JSON.stringify(lines).includes("secret-"));
});

test("at debug the arrival is logged too; a failed request ends at error level", async (t) => {
  const { app, lines } = loggedApp("debug");
  t.after(() => app.close());
  await app.inject({ method: "GET", url: "/ok" });
  assert.deepEqual(
    lines.map((line) => [line.msg, line.level]),
    [
      ["incoming request", 20],
      ["request completed", 30],
    ],
  );
  assert.deepEqual(lines[0]?.req, lines[1]?.req);
  lines.length = 0;
  const failed = await app.inject({ method: "GET", url: "/fails" });
  assert.equal(failed.statusCode, 500);
  const ends = lines.filter((line) => line.msg !== "incoming request");
  assert.ok(
    ends.some(
      (line) => line.level === 50 && (line.err as { message?: string })?.message === "boom",
    ),
    JSON.stringify(ends),
  );
  assert.equal(ends.at(-1)?.msg, "request completed");
  assert.deepEqual(ends.at(-1)?.res, { statusCode: 500 });
});
