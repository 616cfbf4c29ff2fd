// Sessions per client (--max-sessions-per-client), over real sockets: SSE subscriptions,
// multiplexed ones (one session each), long-polls, NDJSON append sessions and S2's s2s sessions
// share one count per client, its credential when it has one, else its address (clients on
// 127.0.0.2 and up).
// Past it a new session is 429 resource_exhausted with Retry-After, and nothing else is held
// back; a client whose session ends gets its place again.
import assert from "node:assert/strict";
import http2 from "node:http2";
import { connect } from "node:net";
import { after, before, test } from "node:test";
import { Agent, request } from "undici";
import type { Gateway } from "../harness/gateway.ts";
import { newStream } from "../harness/http.ts";
import { metric } from "../harness/metrics.ts";
import { openRaw, readAnswers } from "../harness/raw-socket.ts";
import { type Stack, startStack } from "../harness/stack.ts";
import { waitFor } from "../harness/wait.ts";
import { openSse, readUntil, type SseResponse } from "./sse-client.ts";

const MAX = 3;
const chunk = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;
let stack: Stack<Gateway>;
let gw: Gateway;
let stream: string;
let other: string;
const agents = new Map<string, Agent>();

function from(address: string): Agent {
  let agent = agents.get(address);
  if (!agent) {
    agent = new Agent({ connections: null, pipelining: 0, localAddress: address });
    agents.set(address, agent);
  }
  return agent;
}

before(async () => {
  stack = await startStack("nova-client-sessions-", {
    gateway: { checkResponses: true, maxSessionsPerClient: MAX },
  });
  gw = stack.gw;
  stream = await newStream(gw.base);
  other = await newStream(gw.base);
});

/** A stream's path as a multiplexed subscription names it: `<bucket>/<key>`. */
const spec = (path: string) =>
  encodeURIComponent(path.replace("/v1/buckets/", "").replace("/streams/", "/"));
after(async () => {
  await Promise.all([...agents.values()].map((a) => a.close()));
  await stack?.close();
});

/** An SSE subscription at the tail, from `address`; open once its first event came. */
async function subscribe(address: string, headers: Record<string, string> = {}) {
  const sse = await openSse(`${gw.base}${stream}/records`, headers, from(address));
  if (sse.status === 200) await readUntil(sse.events, (seen) => seen.length > 0);
  return sse;
}

async function assertRefused(sse: SseResponse) {
  assert.equal(sse.status, 429);
  assert.ok(Number(sse.headers["retry-after"]) >= 1, "Retry-After");
  const body = JSON.parse(await sse.text());
  assert.equal(body.code, "resource_exhausted");
  assert.equal(body.retryable, true);
  assert.match(body.message, /this client has 3 sessions open .*--max-sessions-per-client/);
}

test("an address holds at most its share of SSE subscriptions; another address is not held back", async () => {
  const open: SseResponse[] = [];
  try {
    for (let i = 0; i < MAX; i++) open.push(await subscribe("127.0.0.2"));
    assert.deepEqual(
      open.map((s) => s.status),
      [200, 200, 200],
    );
    await assertRefused(await subscribe("127.0.0.2"));
    for (let i = 0; i < MAX; i++) open.push(await subscribe("127.0.0.3"));
    assert.equal(open.at(-1)?.status, 200);
    await assertRefused(await subscribe("127.0.0.3"));
    // One ends: its client may open another.
    open.shift()?.close();
    const again = await waitFor(async () => {
      const s = await subscribe("127.0.0.2");
      if (s.status === 200) return s;
      s.close();
      return undefined;
    });
    open.push(again);
  } finally {
    for (const s of open) s.close();
  }
});

test("long-polls and a multiplexed subscription count in the same share, once each", async () => {
  const open: SseResponse[] = [];
  const polls = new AbortController();
  try {
    const multiplexed = await openSse(
      `${gw.base}/v1/subscribe?stream=${spec(stream)}&stream=${spec(other)}`,
      {},
      from("127.0.0.4"),
    );
    open.push(multiplexed);
    assert.equal(
      multiplexed.status,
      200,
      await (multiplexed.status === 200 ? "" : multiplexed.text()),
    );
    const poll = () =>
      request(`${gw.base}${stream}/records?wait=30`, {
        dispatcher: from("127.0.0.4"),
        signal: polls.signal,
      });
    const waiting = poll();
    waiting.catch(() => {});
    // The long-poll holds its place while it waits.
    await waitFor(
      async () => (await metric(gw.base, "nova_gateway_sessions", 'kind="long_poll"')) === 1,
    );
    open.push(await subscribe("127.0.0.4"));
    assert.equal(open.at(-1)?.status, 200);
    const refused = await poll();
    assert.equal(refused.statusCode, 429, await refused.body.text());
    await assertRefused(await subscribe("127.0.0.4"));
  } finally {
    polls.abort();
    for (const s of open) s.close();
  }
});

test("a credential is its own client: NDJSON sessions and subscriptions of one token share a count", async () => {
  const open: SseResponse[] = [];
  const c = await openRaw(gw.base);
  try {
    c.socket.write(
      `POST ${stream}/records HTTP/1.1\r\nhost: x\r\nauthorization: Bearer T\r\n` +
        "content-type: application/x-ndjson\r\ntransfer-encoding: chunked\r\n\r\n" +
        chunk(`${JSON.stringify({ records: [{ body: "n" }] })}\n`),
    );
    await waitFor(() => readAnswers(c.text(), ["POST"]).rest.startsWith("HTTP/1.1 200"));
    for (let i = 0; i < MAX - 1; i++) {
      open.push(await subscribe("127.0.0.5", { authorization: "Bearer T" }));
      assert.equal(open.at(-1)?.status, 200);
    }
    await assertRefused(await subscribe("127.0.0.5", { authorization: "Bearer T" }));
    // The same address with another credential is another client.
    open.push(await subscribe("127.0.0.5", { authorization: "Bearer U" }));
    assert.equal(open.at(-1)?.status, 200);
    const ndjson = await request(`${gw.base}${stream}/records`, {
      method: "POST",
      headers: { authorization: "Bearer T", "content-type": "application/x-ndjson" },
      body: `${JSON.stringify({ records: [{ body: "x" }] })}\n`,
    });
    assert.equal(ndjson.statusCode, 429);
    assert.equal(ndjson.headers.connection, "close");
    assert.equal(JSON.parse(await ndjson.body.text()).code, "resource_exhausted");
  } finally {
    c.socket.destroy();
    for (const s of open) s.close();
  }
});

/** An s2s session on `conn` (S2's SDKs open them so): its status, then its frames' bytes. */
function s2sSession(conn: http2.ClientHttp2Session, method: "GET" | "POST", bucket: string) {
  const req = conn.request({
    ":method": method,
    ":path": "/v1/streams/s/records",
    "content-type": "s2s/proto",
    "s2-basin": bucket,
  });
  req.on("error", () => {});
  const status = new Promise<number>((resolve) =>
    req.on("response", (headers) => resolve(Number(headers[":status"]))),
  );
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise<string>((resolve) =>
    req.on("end", () => resolve(Buffer.concat(chunks).toString())),
  );
  return { req, status, ended };
}

test("s2s read and append sessions count in the share; past it, 429 in S2's shape before any frame", async () => {
  // A stream "s" in a bucket whose name S2's paths take (8 characters or more).
  const bucket = (await newStream(gw.base)).split("/")[3] as string;
  const { hostname, port } = new URL(gw.base);
  const conn = http2.connect(gw.base, {
    createConnection: () =>
      connect({ host: hostname, port: Number(port), localAddress: "127.0.0.6" }),
  });
  try {
    const reads = [0, 1, 2].map(() => s2sSession(conn, "GET", bucket));
    assert.deepEqual(await Promise.all(reads.map((r) => r.status)), [200, 200, 200]);
    await waitFor(
      async () => (await metric(gw.base, "nova_gateway_sessions", 'kind="s2s_read"')) === MAX,
    );
    const append = s2sSession(conn, "POST", bucket);
    append.req.end();
    assert.equal(await append.status, 429);
    const body = JSON.parse(await append.ended);
    assert.equal(body.code, "rate_limited");
    assert.match(body.message, /this client has 3 sessions open .*--max-sessions-per-client/);
    const read = s2sSession(conn, "GET", bucket);
    assert.equal(await read.status, 429);
    // One ends: its client may open another, an append session this time.
    reads[0]?.req.close();
    await waitFor(
      async () => (await metric(gw.base, "nova_gateway_sessions", 'kind="s2s_read"')) === MAX - 1,
    );
    const next = s2sSession(conn, "POST", bucket);
    next.req.end();
    assert.equal(await next.status, 200);
    await next.ended;
  } finally {
    conn.destroy();
  }
});
