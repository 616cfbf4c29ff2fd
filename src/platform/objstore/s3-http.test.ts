import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { connect, type Socket } from "node:net";
import { test } from "node:test";
import { freePort } from "../../../test/harness/ports.ts";
import { waitFor } from "../../../test/harness/wait.ts";
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

test("an aborted request ends at once, closes its connection, and is not tried again", async (t) => {
  const closed: string[] = [];
  const { http, seen } = await fakeS3(t, (_n, res) => {
    // Never answered: the store went silent.
    res.socket?.once("close", () => closed.push("closed"));
  });
  const reader = new AbortController();
  const pending = http.send({ method: "GET", bucket: "nova", key: "k", signal: reader.signal });
  pending.catch(() => {});
  await waitFor(() => seen.length === 1, { message: "the GET to reach the store" });
  reader.abort(new Error("the reader went away"));
  const err = await pending.catch((e: unknown) => e);
  assert.ok(err instanceof S3TransportError, String(err));
  assert.equal(err.code, "ABORT_ERR");
  await waitFor(() => closed.length === 1, { message: "the store to see the connection close" });
  assert.equal(seen.length, 1, "not tried again");
});

test("a key's dot segments go out as signed, not resolved away", async (t) => {
  const { http, seen } = await fakeS3(t, (_n, res) => res.writeHead(200).end());
  await http.send({ method: "GET", bucket: "nova", key: "a/../b/./c/.." });
  assert.equal(seen[0]?.url, "/nova/a/../b/./c/..");
});

test("a connect that never completes fails at the timeout", { timeout: 30_000 }, async (t) => {
  // A listener that never accepts, its queue full: further connects wait for a SYN-ACK.
  const child = spawn(
    process.execPath,
    [
      "-e",
      `require("node:net").createServer().listen({ port: 0, host: "127.0.0.1", backlog: 1 }, function () {
        console.log(this.address().port);
        process.kill(process.pid, "SIGSTOP");
      });`,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  t.after(() => child.kill("SIGKILL"));
  const [line] = (await once(child.stdout, "data")) as [Buffer];
  const port = Number(line.toString().trim());
  const fillers = Array.from({ length: 8 }, () => connect(port, "127.0.0.1").on("error", () => {}));
  t.after(() => {
    for (const socket of fillers) socket.destroy();
  });
  const http = createS3Http({
    endpoint: parseEndpoint(`http://127.0.0.1:${port}`, true),
    region: "us-east-1",
    accessKeyId: "AKIDEXAMPLE",
    secretAccessKey: "secret",
    timeoutMs: 300,
    maxSockets: 4,
    maxAttempts: 1,
  });
  t.after(() => http.destroy());
  const err = await http.send({ method: "GET", bucket: "nova", key: "k" }).catch((e: unknown) => e);
  assert.ok(err instanceof S3TransportError, String(err));
  assert.equal(err.code, "TimeoutError");
});

/** Whether a request's x-amz-date is past S3's 15 minutes from the store's clock, `storeMs`. */
function tooSkewed(req: Seen, storeMs: number): boolean {
  const d = req.headers["x-amz-date"] as string;
  const iso = `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 11)}:${d.slice(11, 13)}:${d.slice(13)}`;
  return Math.abs(Date.parse(iso) - storeMs) > 15 * 60_000;
}

test("a clock the store finds skewed is set by the store's Date, and the request tried again", async (t) => {
  const storeNow = () => Date.now() + 3_600_000;
  const { http, seen } = await fakeS3(t, (_n, res, req) => {
    if (tooSkewed(req, storeNow())) {
      res
        .writeHead(403, { date: new Date(storeNow()).toUTCString() })
        .end("<Error><Code>RequestTimeTooSkewed</Code><Message>too far</Message></Error>");
      return;
    }
    res.writeHead(200).end("ok");
  });
  assert.equal(
    (await http.send({ method: "GET", bucket: "nova", key: "k" })).body.toString(),
    "ok",
  );
  assert.equal(seen.length, 2);
  // Later requests start from the store's clock.
  await http.send({ method: "GET", bucket: "nova", key: "k" });
  assert.equal(seen.length, 3);
});

test("throttling waits at least the store's Retry-After", async (t) => {
  const at: number[] = [];
  const { http } = await fakeS3(t, (n, res) => {
    at.push(performance.now());
    if (n === 0) {
      res
        .writeHead(503, { "retry-after": "0.3" })
        .end("<Error><Code>SlowDown</Code><Message>slow</Message></Error>");
    } else res.writeHead(200).end();
  });
  await http.send({ method: "GET", bucket: "nova", key: "k" });
  assert.equal(at.length, 2);
  assert.ok((at[1] as number) - (at[0] as number) >= 300, `${at}`);
});

test("an XML answer whose root is <Error> is an error under 200; an object's bytes never are", async (t) => {
  const error =
    "<?xml version='1.0'?>\n<Error><Code>InternalError</Code><Message>later</Message></Error>";
  const { http, seen } = await fakeS3(t, (n, res) =>
    res.writeHead(200).end(n === 0 || n === 2 ? error : "<DeleteResult/>"),
  );
  const res = await http.send({
    method: "POST",
    bucket: "nova",
    query: [["delete", ""]],
    xml: true,
  });
  assert.equal(res.body.toString(), "<DeleteResult/>");
  assert.equal(seen.length, 2);
  const object = await http.send({ method: "GET", bucket: "nova", key: "k" });
  assert.equal(object.body.toString(), error);
});

test("a refusal after an attempt whose answer was lost says so", async (t) => {
  const { http } = await fakeS3(t, (n, res) => {
    if (n === 0) res.socket?.destroy();
    else
      res.writeHead(412).end("<Error><Code>PreconditionFailed</Code><Message>no</Message></Error>");
  });
  const err = await http
    .send({
      method: "PUT",
      bucket: "nova",
      key: "k",
      body: Buffer.from("x"),
      headers: { "if-none-match": "*" },
    })
    .catch((e: unknown) => e);
  assert.ok(err instanceof S3ResponseError);
  assert.equal(err.status, 412);
  assert.equal(err.afterLostAttempt, true);

  const clear = await fakeS3(t, (_n, res) =>
    res.writeHead(412).end("<Error><Code>PreconditionFailed</Code><Message>no</Message></Error>"),
  );
  const plain = await clear.http
    .send({ method: "PUT", bucket: "nova", key: "k", body: Buffer.from("x") })
    .catch((e: unknown) => e);
  assert.ok(plain instanceof S3ResponseError);
  assert.equal(plain.afterLostAttempt, false);
});

test("a refusal without a code that moved our clock to the store's is tried again", async (t) => {
  const storeNow = () => Date.now() + 3_600_000;
  const { http, seen } = await fakeS3(t, (_n, res, req) => {
    const skewed = tooSkewed(req, storeNow());
    // A HEAD's answer has no body to name RequestTimeTooSkewed.
    res.writeHead(skewed ? 403 : 200, { date: new Date(storeNow()).toUTCString() }).end();
  });
  assert.equal((await http.send({ method: "HEAD", bucket: "nova" })).status, 200);
  assert.equal(seen.length, 2);
  assert.ok(Math.abs(http.now().getTime() - storeNow()) < 60_000, String(http.now()));
});

test("a connection refused never reached the store; one cut after connecting may have", async (t) => {
  const refused = createS3Http({
    endpoint: parseEndpoint(`http://127.0.0.1:${await freePort()}`, true),
    region: "us-east-1",
    accessKeyId: "AKIDEXAMPLE",
    secretAccessKey: "secret",
    timeoutMs: 5_000,
    maxSockets: 1,
    maxAttempts: 1,
  });
  t.after(() => refused.destroy());
  const never = await refused.send({ method: "GET", bucket: "nova", key: "k" }).catch((e) => e);
  assert.ok(never instanceof S3TransportError, String(never));
  assert.equal(never.code, "ECONNREFUSED");
  assert.equal(never.connected, false);

  const { http } = await fakeS3(t, (_n, res) => res.socket?.destroy(), { maxAttempts: 1 });
  const cut = await http.send({ method: "GET", bucket: "nova", key: "k" }).catch((e) => e);
  assert.ok(cut instanceof S3TransportError, String(cut));
  assert.equal(cut.connected, true);
});

test("a Retry-After given as an HTTP date is waited for", async (t) => {
  const at: number[] = [];
  let until = 0;
  const { http } = await fakeS3(t, (n, res) => {
    at.push(Date.now());
    if (n === 0) {
      until = Math.floor((Date.now() + 2_000) / 1000) * 1000;
      res
        .writeHead(503, { "retry-after": new Date(until).toUTCString() })
        .end("<Error><Code>SlowDown</Code><Message>slow</Message></Error>");
    } else res.writeHead(200).end();
  });
  await http.send({ method: "GET", bucket: "nova", key: "k" });
  assert.equal(at.length, 2);
  assert.ok((at[1] as number) >= until, `${at} against ${until}`);
});

test("an <Error> root after any amount of whitespace, or with a namespace, is an error", async (t) => {
  const answers = [
    `${" ".repeat(4096)}\n<Error><Code>InternalError</Code><Message>late</Message></Error>`,
    `<?xml version="1.0"?><Error xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Code>InternalError</Code></Error>`,
    "<DeleteResult/>",
  ];
  const { http, seen } = await fakeS3(t, (n, res) => res.writeHead(200).end(answers[n]));
  const res = await http.send({
    method: "POST",
    bucket: "nova",
    query: [["delete", ""]],
    xml: true,
  });
  assert.equal(res.body.toString(), "<DeleteResult/>");
  assert.equal(seen.length, 3);
});

test("destroying the client ends a request waiting to be retried, with its error", async (t) => {
  const { http, seen } = await fakeS3(t, (_n, res) =>
    res
      .writeHead(503, { "retry-after": "600" })
      .end("<Error><Code>SlowDown</Code><Message>slow</Message></Error>"),
  );
  const pending = http.send({ method: "GET", bucket: "nova", key: "k" }).catch((e: unknown) => e);
  await waitFor(() => seen.length === 1, { message: "the first attempt" });
  http.destroy();
  const err = await pending;
  assert.ok(err instanceof S3ResponseError, String(err));
  assert.equal(err.code, "SlowDown");
  assert.equal(seen.length, 1);
});
