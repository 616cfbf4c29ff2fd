import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { test } from "node:test";
import { createS3Http, type S3Http, S3ResponseError, S3TransportError } from "./s3-http.ts";
import { parseEndpoint } from "./s3-url.ts";

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: Buffer;
}

/** A local server answering request n (from 0) with `answer(n, req, res)`; the requests it saw. */
async function fakeS3(
  t: { after(fn: () => unknown): void },
  answer: (n: number, res: ServerResponse, seen: Seen) => void,
  opts: { maxAttempts?: number; timeoutMs?: number } = {},
): Promise<{ http: S3Http; seen: Seen[] }> {
  const seen: Seen[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const s = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      seen.push(s);
      answer(seen.length - 1, res, s);
    });
  });
  server.on("connection", (socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  assert.ok(address && typeof address === "object");
  const http = createS3Http({
    endpoint: parseEndpoint(`http://127.0.0.1:${address.port}`, true),
    region: "us-east-1",
    accessKeyId: "AKIDEXAMPLE",
    secretAccessKey: "secret",
    timeoutMs: opts.timeoutMs ?? 5_000,
    maxSockets: 4,
    maxAttempts: opts.maxAttempts ?? 3,
  });
  t.after(() => {
    http.destroy();
    for (const socket of sockets) socket.destroy();
    server.close();
  });
  return { http, seen };
}

const slowDown = (res: ServerResponse) =>
  res
    .writeHead(503, { "content-type": "application/xml" })
    .end("<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>");

test("a signed PUT carries its body's length and digest, and answers the store's headers", async (t) => {
  const { http, seen } = await fakeS3(t, (_n, res) => res.writeHead(200, { etag: '"e1"' }).end());
  const body = Buffer.from("hello, store");
  const res = await http.send({
    method: "PUT",
    bucket: "nova",
    key: "a b/c",
    body,
    headers: { "if-none-match": "*" },
  });
  assert.equal(res.status, 200);
  assert.equal(res.headers.etag, '"e1"');
  const [req] = seen;
  assert.ok(req);
  assert.equal(req.method, "PUT");
  assert.equal(req.url, "/nova/a%20b/c");
  assert.deepEqual(req.body, body);
  assert.equal(req.headers["content-length"], String(body.length));
  assert.equal(
    req.headers["x-amz-content-sha256"],
    createHash("sha256").update(body).digest("hex"),
  );
  assert.equal(req.headers["if-none-match"], "*");
  assert.match(
    req.headers.authorization ?? "",
    /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/us-east-1\/s3\/aws4_request, SignedHeaders=content-length;host;if-none-match;x-amz-content-sha256;x-amz-date, Signature=[0-9a-f]{64}$/,
  );
});

test("a query is sent in canonical order", async (t) => {
  const { http, seen } = await fakeS3(t, (_n, res) =>
    res.writeHead(200).end("<ListBucketResult/>"),
  );
  await http.send({
    method: "GET",
    bucket: "nova",
    query: [
      ["prefix", "a/b c"],
      ["max-keys", "5"],
      ["marker", "m"],
    ],
  });
  assert.equal(seen[0]?.url, "/nova?marker=m&max-keys=5&prefix=a%2Fb%20c");
});

test("throttling and 5xx are retried up to the attempts allowed, then answered as S3's error", async (t) => {
  const { http, seen } = await fakeS3(t, (n, res) =>
    n < 2 ? slowDown(res) : res.writeHead(200).end("ok"),
  );
  const res = await http.send({ method: "GET", bucket: "nova", key: "k" });
  assert.equal(res.body.toString(), "ok");
  assert.equal(seen.length, 3);

  const once = await fakeS3(t, (_n, res) => slowDown(res), { maxAttempts: 2 });
  const err = await once.http
    .send({ method: "GET", bucket: "nova", key: "k" })
    .catch((e: unknown) => e);
  assert.ok(err instanceof S3ResponseError);
  assert.equal(err.code, "SlowDown");
  assert.equal(err.status, 503);
  assert.equal(err.message, "Please reduce your request rate.");
  assert.equal(once.seen.length, 2);
});

test("a client error is not retried; one without a body is named by its status", async (t) => {
  const { http, seen } = await fakeS3(t, (_n, res) => res.writeHead(404).end());
  const err = await http.send({ method: "HEAD", bucket: "nova" }).catch((e: unknown) => e);
  assert.ok(err instanceof S3ResponseError);
  assert.equal(err.code, "NotFound");
  assert.equal(err.status, 404);
  assert.equal(seen.length, 1);
});

test("a server that does not answer in time, or stops mid-body, fails the request", async (t) => {
  const silent = await fakeS3(t, () => undefined, { timeoutMs: 150, maxAttempts: 1 });
  const err = await silent.http
    .send({ method: "GET", bucket: "nova", key: "k" })
    .catch((e: unknown) => e);
  assert.ok(err instanceof S3TransportError, String(err));
  assert.equal(err.code, "TimeoutError");

  const stalled = await fakeS3(
    t,
    (_n, res) => {
      res.writeHead(200, { "content-length": "10" });
      res.write("12345");
    },
    { timeoutMs: 150, maxAttempts: 1 },
  );
  const late = await stalled.http
    .send({ method: "GET", bucket: "nova", key: "k" })
    .catch((e: unknown) => e);
  assert.ok(late instanceof S3TransportError, String(late));
  assert.equal(late.code, "TimeoutError");

  const cut = await fakeS3(t, (n, res) => {
    if (n > 0) return void res.writeHead(200).end("whole");
    res.writeHead(200, { "content-length": "10" });
    res.write("12345", () => res.socket?.destroy());
  });
  // A cut answer is a lost connection: retried.
  const whole = await cut.http.send({ method: "GET", bucket: "nova", key: "k" });
  assert.equal(whole.body.toString(), "whole");
  assert.equal(cut.seen.length, 2);
});
