// HTTP/2 over real sockets: every route (SSE and NDJSON sessions included) over h2 with TLS (a
// self-signed certificate made here) and over cleartext h2c on the HTTP/1.1 port, with Node's
// http2 client and with curl; HTTP/1.1 over TLS for old clients; bad prefaces; a closing gateway
// sends GOAWAY and lets the request in flight finish.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { once } from "node:events";
import http2 from "node:http2";
import net from "node:net";
import { after, before, describe, test } from "node:test";
import tls from "node:tls";
import { promisify } from "node:util";
import openapi from "../../openapi/openapi.json" with { type: "json" };
import { DEFAULT_H2_MAX_STREAMS } from "../../src/gateway/settings.ts";
import { type Gateway, inProcessGateway } from "../harness/gateway.ts";
import { gatewayProcess } from "../harness/gateway-process.ts";
import { http as httpAt, newStream } from "../harness/http.ts";
import { metric } from "../harness/metrics.ts";
import { openRaw, parseAnswer } from "../harness/raw-socket.ts";
import { type Stack, startStack } from "../harness/stack.ts";
import { systemTool } from "../harness/system-tool.ts";
import { selfSignedCert, type TestCert } from "../harness/tls.ts";
import { waitFor } from "../harness/wait.ts";

const openssl = systemTool("/usr/bin/openssl", "openssl");
const curlTool = systemTool("/usr/bin/curl", "curl");
const skip = openssl.skip ?? curlTool.skip;

interface Answer {
  status: number;
  headers: Record<string, string>;
  text: string;
}
interface Request {
  headers?: Record<string, string>;
  body?: string;
}
type Send = (method: string, path: string, req?: Request) => Promise<Answer>;

/** Node's http2 client, one session for every request. */
function nodeClient(base: string, cert: TestCert | undefined): { send: Send; close(): void } {
  const session = http2.connect(base, cert ? { ca: cert.cert } : {});
  session.on("error", () => {});
  const send: Send = (method, path, req = {}) =>
    new Promise((resolve, reject) => {
      const stream = session.request({ ":method": method, ":path": path, ...req.headers });
      let status = 0;
      let headers: Record<string, string> = {};
      let text = "";
      stream.setEncoding("utf8");
      stream.on("response", (h) => {
        status = Number(h[":status"]);
        headers = Object.fromEntries(Object.entries(h).map(([k, v]) => [k, String(v)]));
      });
      stream.on("data", (d: string) => {
        text += d;
      });
      stream.on("end", () => resolve({ status, headers, text }));
      stream.on("error", reject);
      stream.end(req.body);
    });
  return { send, close: () => session.close() };
}

/** curl, one process per request; `flags` pick the protocol. */
function curlClient(base: string, flags: string[], expectVersion: string): Send {
  return async (method, path, req = {}) => {
    const args = ["-sS", "-i", "-X", method, ...flags];
    for (const [k, v] of Object.entries(req.headers ?? {})) args.push("-H", `${k}: ${v}`);
    const child = promisify(execFile)(curlTool.path, [
      ...args,
      ...(req.body === undefined ? [] : ["--data-binary", req.body]),
      base + path,
    ]);
    const { stdout } = await child;
    const split = stdout.indexOf("\r\n\r\n");
    const [statusLine, ...lines] = stdout.slice(0, split).split("\r\n");
    const [version, status] = (statusLine as string).split(" ");
    assert.equal(version, expectVersion, `${method} ${path}`);
    const headers = Object.fromEntries(
      lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 2)]),
    );
    return { status: Number(status), headers, text: stdout.slice(split + 4) };
  };
}

const json = (body: unknown) => ({
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});

const OPERATIONS = Object.entries(openapi.paths).flatMap(([path, ops]) =>
  Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
);

let runs = 0;
/**
 * Walks a bucket and a stream through every route the OpenAPI document lists, checking each
 * answer; returns the operations it exercised.
 */
async function everyRoute(send: Send): Promise<Set<string>> {
  const seen = new Set<string>();
  const bucket = `h2-${process.pid}-${++runs}`;
  const s = `/v1/buckets/${bucket}/streams/s`;
  const call = async (
    method: string,
    path: string,
    status: number,
    req?: Request,
    template?: string,
  ) => {
    const res = await send(method, path, req);
    assert.equal(res.status, status, `${method} ${path}: ${res.text}`);
    seen.add(
      `${method} ${
        template ??
        path.split("?")[0]?.replace(bucket, "{bucket}").replace("/streams/s", "/streams/{key}")
      }`,
    );
    return res;
  };
  await call("GET", "/livez", 200);
  await call("GET", "/readyz", 200);
  assert.match((await call("GET", "/metrics", 200)).text, /nova_gateway_requests_total/);
  assert.equal(JSON.parse((await call("GET", "/openapi.json", 200)).text).openapi, "3.1.0");
  await call("POST", "/v1/buckets", 201, json({ name: bucket }));
  await call("GET", "/v1/buckets", 200);
  await call("GET", `/v1/buckets/${bucket}`, 200);
  await call("PATCH", `/v1/buckets/${bucket}`, 200, json({ create_stream_on_read: true }));
  await call("POST", `/v1/buckets/${bucket}/streams`, 201, json({ key: "s" }));
  await call("GET", `/v1/buckets/${bucket}/streams`, 200);
  await call("GET", s, 200);
  await call("PATCH", s, 200, json({ retention_max_age_ms: 0 }));
  await call("POST", `${s}/records`, 200, json({ records: [{ body: "a" }] }));
  const ndjson = await call("POST", `${s}/records`, 200, {
    headers: { "content-type": "application/x-ndjson" },
    body: `${JSON.stringify({ records: [{ body: "b" }] })}\n`,
  });
  assert.equal(ndjson.headers["content-type"], "application/x-ndjson");
  assert.deepEqual(JSON.parse(ndjson.text.trimEnd().split("\n").at(-1) as string), {
    end: { reason: "done", batches: 1 },
  });
  const page = JSON.parse((await call("GET", `${s}/records?seq_num=0`, 200)).text);
  assert.deepEqual(
    page.records.map((r: { body: string }) => r.body),
    ["a", "b"],
  );
  // count=2: the subscription ends with `done` after both records.
  const sse = await call("GET", `${s}/records?seq_num=0&count=2`, 200, {
    headers: { accept: "text/event-stream" },
  });
  assert.equal(sse.headers["content-type"], "text/event-stream");
  assert.match(sse.text, /event: batch\nid: [^\n]+\ndata: \{"records":\[\{"seq_num":0,/);
  assert.match(sse.text, /event: done\ndata: \{"next":\{"seq_num":2,/);
  const multiplexed = await call("GET", `/v1/subscribe?stream=${bucket}/s;seq_num=0;count=2`, 200, {
    headers: { accept: "text/event-stream" },
  });
  assert.match(
    multiplexed.text,
    /event: batch\nid: 0:2,2,2\ndata: \{"stream":"[^"]+\/s","records":/,
  );
  assert.match(multiplexed.text, /event: done\ndata: \{"stream":"[^"]+\/s","next":\{"seq_num":2,/);
  assert.equal(JSON.parse((await call("GET", `${s}/records/tail`, 200)).text).tail.seq_num, 2);
  await call("POST", `${s}/trim`, 204, json({ seq_num: 1 }));
  await call("POST", `${s}/fence`, 200, json({ fencing_token: "t" }));
  const closed = await call("POST", `${s}/close`, 200, json({ fencing_token: "t" }));
  assert.equal(JSON.parse(closed.text).closed, true);
  // The route answers (its own validation; the embedded star has no signing key anyway).
  const token = await call("POST", "/v1/tokens", 400, json({ key_id: "k", secret: "s" }));
  assert.equal(JSON.parse(token.text).code, "invalid_argument");
  await call("DELETE", s, 202);
  await call("DELETE", `/v1/buckets/${bucket}`, 202);
  await everyS2Route(call, bucket);
  return seen;
}

type Call = (
  method: string,
  path: string,
  status: number,
  req?: Request,
  template?: string,
) => Promise<Answer>;

/** The S2-compatible face's routes (docs/s2-compat.md), on a basin of their own. */
async function everyS2Route(call: Call, bucket: string) {
  const basin = `${bucket}-s2`;
  const b = `/v1/basins/${basin}`;
  const on = (req: Request = {}): Request => ({
    ...req,
    headers: { ...req.headers, "s2-basin": basin },
  });
  await call("POST", "/v1/basins", 201, json({ basin }));
  await call("GET", "/v1/basins", 200);
  await call("PUT", b, 200, undefined, "/v1/basins/{basin}");
  await call("GET", b, 200, undefined, "/v1/basins/{basin}");
  await call("PATCH", b, 200, json({ create_stream_on_read: true }), "/v1/basins/{basin}");
  await call("POST", "/v1/streams", 201, on(json({ stream: "s" })));
  await call("GET", "/v1/streams", 200, on());
  const st = "/v1/streams/{stream}";
  await call("PUT", "/v1/streams/s", 200, on(), st);
  await call("GET", "/v1/streams/s", 200, on(), st);
  await call("PATCH", "/v1/streams/s", 200, on(json({ storage_class: "express" })), st);
  await call(
    "POST",
    "/v1/streams/s/records",
    200,
    on(json({ records: [{ body: "a" }] })),
    `${st}/records`,
  );
  const read = await call("GET", "/v1/streams/s/records?seq_num=0", 200, on(), `${st}/records`);
  assert.deepEqual(
    JSON.parse(read.text).records.map((r: { body: string }) => r.body),
    ["a"],
  );
  const sse = await call(
    "GET",
    "/v1/streams/s/records?seq_num=0&count=1",
    200,
    on({ headers: { accept: "text/event-stream" } }),
    `${st}/records`,
  );
  assert.match(sse.text, /event: batch\nid: 0,1,9\n/);
  assert.match(sse.text, /data: \[DONE\]\n\n$/);
  const tail = await call("GET", "/v1/streams/s/records/tail", 200, on(), `${st}/records/tail`);
  assert.equal(JSON.parse(tail.text).tail.seq_num, 1);
  await call("DELETE", "/v1/streams/s", 202, on(), st);
  await call("DELETE", b, 202, undefined, "/v1/basins/{basin}");
}

describe("HTTP/2", { skip }, () => {
  let stack: Stack<Gateway>;
  let tlsGw: Gateway;
  let cert: TestCert;

  before(async () => {
    stack = await startStack("nova-h2-");
    cert = await selfSignedCert(openssl, stack.dir);
    tlsGw = await inProcessGateway([stack.star.address], { tls: cert });
  });
  after(async () => {
    await tlsGw?.close();
    await stack?.close();
  });

  test("every route over h2 with TLS, Node's client", async () => {
    assert.match(tlsGw.base, /^https:/);
    const client = nodeClient(tlsGw.base, cert);
    try {
      assert.deepEqual([...(await everyRoute(client.send))].sort(), [...OPERATIONS].sort());
    } finally {
      client.close();
    }
  });

  test("every route over h2 with TLS, curl --http2", async () => {
    const send = curlClient(tlsGw.base, ["--http2", "--cacert", cert.certFile], "HTTP/2");
    assert.deepEqual([...(await everyRoute(send))].sort(), [...OPERATIONS].sort());
  });

  test("every route over HTTP/1.1 with TLS (ALPN http/1.1), curl --http1.1", async () => {
    const send = curlClient(tlsGw.base, ["--http1.1", "--cacert", cert.certFile], "HTTP/1.1");
    assert.deepEqual([...(await everyRoute(send))].sort(), [...OPERATIONS].sort());
  });

  test("every route over cleartext h2c on the HTTP/1.1 port, Node's client", async () => {
    const client = nodeClient(stack.gw.base, undefined);
    try {
      assert.deepEqual([...(await everyRoute(client.send))].sort(), [...OPERATIONS].sort());
    } finally {
      client.close();
    }
  });

  test("every route over h2c, curl --http2-prior-knowledge", async () => {
    const send = curlClient(stack.gw.base, ["--http2-prior-knowledge"], "HTTP/2");
    assert.deepEqual([...(await everyRoute(send))].sort(), [...OPERATIONS].sort());
  });

  test("the gateway process serves TLS from --tls-cert and --tls-key files", async (t) => {
    const gw = await gatewayProcess(
      [stack.star.address],
      ["--tls-cert", cert.certFile, "--tls-key", cert.keyFile],
    );
    t.after(() => gw.close());
    assert.match(gw.base, /^https:\/\/127\.0\.0\.1:\d+$/);
    const send = curlClient(gw.base, ["--http2", "--cacert", cert.certFile], "HTTP/2");
    assert.equal((await send("GET", "/readyz")).status, 200);
  });

  test("an h2 connection is told its stream limit (--h2-max-streams)", async () => {
    const session = http2.connect(stack.gw.base);
    session.on("error", () => {});
    try {
      const settings = await new Promise<http2.Settings>((resolve) =>
        session.once("remoteSettings", resolve),
      );
      assert.equal(settings.maxConcurrentStreams, DEFAULT_H2_MAX_STREAMS);
    } finally {
      session.close();
    }
  });

  test("request headers over 16 KiB are 431 header_too_large over h2, as over HTTP/1.1", async () => {
    const session = http2.connect(stack.gw.base);
    session.on("error", () => {});
    const get = (bytes: number, more: http2.OutgoingHttpHeaders = {}) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = session.request({ ":path": "/livez", "x-big": "a".repeat(bytes), ...more });
        let status = 0;
        let body = "";
        req.setEncoding("utf8");
        req.on("response", (headers) => {
          status = Number(headers[":status"]);
        });
        req.on("data", (chunk: string) => {
          body += chunk;
        });
        req.on("end", () => resolve({ status, body }));
        req.on("error", reject);
        req.end();
      });
    try {
      const settings = await new Promise<http2.Settings>((resolve) =>
        session.once("remoteSettings", resolve),
      );
      assert.equal(settings.maxHeaderListSize, 4 * 16 * 1024);
      assert.equal((await get(15_000)).status, 200);
      const over = await get(17_000);
      assert.equal(over.status, 431);
      assert.deepEqual(JSON.parse(over.body), {
        code: "header_too_large",
        message: "the request line and headers are over 16384 bytes",
        retryable: false,
      });
      // The session goes on serving.
      assert.equal((await get(10)).status, 200);
      // Counted as HTTP/1.1 would: cookie crumbs (RFC 9113 8.2.3) as one line, 15.5 KB
      // joined, which HTTP/1.1 takes; and more fields than HTTP/2's default 128 pairs.
      const crumbs = Array.from({ length: 121 }, (_, i) => `c${i}=${"v".repeat(120)}`);
      assert.equal((await get(10, { cookie: crumbs })).status, 200);
      const fields = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`x-f${i}`, "1"]));
      assert.equal((await get(10, fields)).status, 200);
    } finally {
      session.close();
    }
  });

  test("SSE subscriptions of an h2c session destroyed while they start are all let go", async () => {
    const base = stack.gw.base;
    const stream = await newStream(base);
    assert.equal(
      (await httpAt(base, "POST", `${stream}/records`, { records: [{ body: "x" }] })).status,
      200,
    );
    const sessions = () => metric(base, "nova_gateway_sessions", 'kind="sse"');
    // Destroyed as the requests go out, and after the first, 5 and 15 answers of 30: the others
    // are reset between their arrival and their start, or while they start.
    for (const answered of [0, 0, 1, 1, 5, 15]) {
      const session = http2.connect(base);
      session.on("error", () => {});
      await once(session, "connect");
      let responses = 0;
      for (let i = 0; i < 30; i++) {
        const req = session.request({ ":path": `${stream}/records`, accept: "text/event-stream" });
        req.on("error", () => {});
        req.on("response", () => responses++);
        req.resume();
      }
      if (answered === 0) await new Promise((resolve) => setImmediate(resolve));
      else await waitFor(() => responses >= answered, { message: `${answered} answers` });
      session.destroy();
    }
    await waitFor(async () => (await sessions()) === 0, { message: "every SSE session let go" });
    assert.equal(await metric(base, "nova_gateway_hub_subscribers"), 0);
  });

  test("an answer its client never reads is cut after --send-timeout-ms; others go on", async () => {
    const gw = await inProcessGateway([stack.star.address], { sendTimeoutMs: 300 });
    // A window of 0: the gateway may send the page's headers, never its bytes.
    const stalled = http2.connect(gw.base, { settings: { initialWindowSize: 0 } });
    stalled.on("error", () => {});
    try {
      const path = await newStream(gw.base);
      const big = { records: Array.from({ length: 4 }, () => ({ body: "x".repeat(200_000) })) };
      assert.equal((await httpAt(gw.base, "POST", `${path}/records`, big)).status, 200);
      const stream = stalled.request({ ":path": `${path}/records?seq_num=0` });
      stream.on("error", () => {});
      let reset: number | undefined;
      stream.on("close", () => {
        reset = stream.rstCode;
      });
      const [headers] = (await once(stream, "response")) as [http2.IncomingHttpHeaders];
      assert.equal(headers[":status"], 200);
      await waitFor(() => reset !== undefined, { timeoutMs: 30_000, message: "the answer cut" });
      assert.equal(reset, http2.constants.NGHTTP2_CANCEL, "cut, not ended as if whole");
      // The connection and the gateway serve on.
      const next = stalled.request({ ":path": "/livez" });
      next.on("error", () => {});
      const [answered] = (await once(next, "response")) as [http2.IncomingHttpHeaders];
      assert.equal(answered[":status"], 200);
    } finally {
      stalled.destroy();
      await gw.close();
    }
  });

  test("with TLS, the connection past --max-connections is closed before its handshake", async (t) => {
    const limited = await inProcessGateway([stack.star.address], { tls: cert, maxConnections: 1 });
    t.after(() => limited.close());
    const url = new URL(limited.base);
    const open = () => {
      const socket = tls.connect({ host: url.hostname, port: Number(url.port), ca: cert.cert });
      socket.on("error", () => {});
      return {
        socket,
        outcome: new Promise<string>((resolve) => {
          socket.once("secureConnect", () => resolve("handshake"));
          socket.once("close", () => resolve("closed"));
        }),
      };
    };
    const first = open();
    assert.equal(await first.outcome, "handshake");
    const second = open();
    assert.equal(await second.outcome, "closed");
    first.socket.destroy();
    second.socket.destroy();
  });

  test("with TLS behind the PROXY protocol too, no plain-text answer goes on a refused connection", async (t) => {
    const limited = await inProcessGateway([stack.star.address], {
      tls: cert,
      maxConnections: 1,
      trustProxy: ["loopback"],
      proxyProtocol: true,
    });
    t.after(() => limited.close());
    const url = new URL(limited.base);
    // The first holds the one connection: its PROXY header and its handshake.
    const first = net.connect(Number(url.port), url.hostname);
    first.on("error", () => {});
    let secured: tls.TLSSocket | undefined;
    try {
      await once(first, "connect");
      first.write(`PROXY TCP4 192.0.2.7 ${url.hostname} 5555 ${url.port}\r\n`);
      secured = tls.connect({ socket: first, host: url.hostname, ca: cert.cert });
      secured.on("error", () => {});
      await once(secured, "secureConnect");
      const second = await openRaw(limited.base);
      await second.closed;
      assert.equal(second.text(), "", "the balancer's next bytes are a PROXY header and TLS");
    } finally {
      secured?.destroy();
      first.destroy();
    }
  });

  test("a malformed preface is answered 400 in the contract's body; other sessions go on", async () => {
    const client = nodeClient(stack.gw.base, undefined);
    try {
      assert.equal((await client.send("GET", "/readyz")).status, 200);
      const raw = await openRaw(stack.gw.base);
      raw.socket.write("PRI * HTTP/2.0\r\n\r\nXY\r\n\r\n");
      await raw.closed;
      const answer = parseAnswer(raw.text());
      assert.equal(answer.status, 400);
      assert.equal(answer.body.code, "bad_request");
      assert.equal(answer.body.retryable, false);
      assert.match(String(answer.body.message), /HTTP\/2 preface/);
      assert.equal((await client.send("GET", "/readyz")).status, 200);
    } finally {
      client.close();
    }
  });

  test("frames that are not HTTP/2 after a good preface get GOAWAY PROTOCOL_ERROR", async () => {
    const client = nodeClient(stack.gw.base, undefined);
    try {
      const raw = await openRaw(stack.gw.base);
      // The preface, then a frame header announcing a DATA frame on stream 0 (never allowed).
      raw.socket.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
      raw.socket.write(Buffer.from([0, 0, 1, 0, 0, 0, 0, 0, 0, 0]));
      await raw.closed;
      const bytes = Buffer.from(raw.text(), "latin1");
      const frames: { type: number; payload: Buffer }[] = [];
      for (let at = 0; at + 9 <= bytes.length; ) {
        const length = bytes.readUIntBE(at, 3);
        frames.push({
          type: bytes[at + 3] as number,
          payload: bytes.subarray(at + 9, at + 9 + length),
        });
        at += 9 + length;
      }
      const goaway = frames.find((f) => f.type === 7);
      assert.ok(goaway, `frames: ${frames.map((f) => f.type)}`);
      assert.equal(goaway.payload.readUInt32BE(4), http2.constants.NGHTTP2_PROTOCOL_ERROR);
      assert.equal((await client.send("GET", "/readyz")).status, 200);
    } finally {
      client.close();
    }
  });
});

describe("HTTP/2 while the gateway closes", { skip }, () => {
  let stack: Stack<Gateway>;
  before(async () => {
    stack = await startStack("nova-h2-drain-");
  });
  after(() => stack?.close());

  test("an h2c session gets GOAWAY, and its request in flight finishes", async () => {
    const gw = await inProcessGateway([stack.star.address]);
    const session = http2.connect(gw.base);
    session.on("error", () => {});
    let closing: Promise<void> | undefined;
    let goaway = false;
    session.on("goaway", () => {
      goaway = true;
    });
    try {
      const name = `drain-${process.pid}`;
      const create = session.request({
        ":method": "POST",
        ":path": "/v1/buckets",
        "content-type": "application/json",
      });
      create.end(JSON.stringify({ name, create_stream_on_append: true }));
      const created = await new Promise((resolve) => create.on("response", resolve).resume());
      assert.equal((created as http2.IncomingHttpHeaders)[":status"], 201);
      // An append whose body is half sent when the gateway starts closing.
      const body = JSON.stringify({ records: [{ body: "in flight" }] });
      const append = session.request({
        ":method": "POST",
        ":path": `/v1/buckets/${name}/streams/s/records`,
        "content-type": "application/json",
      });
      let status = 0;
      let text = "";
      const answered = new Promise<void>((resolve) => {
        append.on("response", (h) => {
          status = Number(h[":status"]);
        });
        append.setEncoding("utf8").on("data", (d: string) => {
          text += d;
        });
        append.on("end", resolve);
      });
      append.write(body.slice(0, 10));
      await waitFor(() => append.sentHeaders !== undefined && append.bufferSize === 0, {
        message: "the first half of the body sent",
      });
      closing = gw.close();
      await waitFor(() => goaway, { message: "GOAWAY from the closing gateway" });
      append.end(body.slice(10));
      await answered;
      assert.equal(status, 200, text);
      assert.equal(JSON.parse(text).end.seq_num, 1);
    } finally {
      session.destroy();
      await (closing ?? gw.close());
    }
  });
});
