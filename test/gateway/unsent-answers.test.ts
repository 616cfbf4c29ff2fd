// Answers to reads that clients leave unread are bounded in bytes, per client and in all, over
// real sockets: HTTP/2 clients that open reads and never open their streams' windows hold at
// most their bound, their next read is a retryable 429 in the terms of the face it asked (nova,
// S2, Durable Streams) with nothing of the refused answer's caching, other clients still read,
// and the budget comes back once the answers are gone.
import assert from "node:assert/strict";
import http2 from "node:http2";
import { after, before, test } from "node:test";
import { request } from "undici";
import { type Gateway, inProcessGateway } from "../harness/gateway.ts";
import { http, newStream } from "../harness/http.ts";
import { metric } from "../harness/metrics.ts";
import { type Stack, startStack } from "../harness/stack.ts";
import { waitFor } from "../harness/wait.ts";

const DS = { bucket: "unsent-ds", longPollMs: 1000, sseCloseS: 60 };
let stack: Stack<Gateway>;
let stream: string;
let basin: string;

before(async () => {
  // A client may hold one answer, however small, and no more (its first always goes).
  stack = await startStack("nova-unsent-", {
    gateway: {
      checkResponses: true,
      ds: DS,
      unsentAnswers: { maxBytes: 256 * 1024 * 1024, clientMaxBytes: 1 },
    },
  });
  stream = await newStream(stack.gw.base);
  basin = stream.split("/")[3] as string;
  const body = "x".repeat(1000);
  const res = await http(stack.gw.base, "POST", `${stream}/records`, {
    records: Array.from({ length: 1000 }, () => ({ body })),
  });
  assert.equal(res.status, 200, res.text);
});
after(() => stack?.close());

const held = (base: string) =>
  metric(base, "nova_gateway_memory_held_bytes", 'part="unsent_answers"');

/** An HTTP/2 client that never opens a stream's window: every answer it gets stays unsent. */
function stalledClient(base: string, token: string) {
  const session = http2.connect(base, { settings: { initialWindowSize: 0 } });
  session.on("error", () => {});
  return {
    /** The status and headers of a GET of `path`; its body never comes. */
    head(path: string, headers: Record<string, string> = {}) {
      const req = session.request({ ":path": path, authorization: `Bearer ${token}`, ...headers });
      req.on("error", () => {});
      return new Promise<http2.IncomingHttpHeaders>((resolve, reject) => {
        req.once("response", resolve);
        req.once("close", () => reject(new Error(`${path}: closed without an answer`)));
      });
    },
    close: () => session.destroy(),
  };
}

const pooled = (bytes: number) => 2 ** Math.ceil(Math.log2(bytes));

const read = (base: string, path: string, token: string, headers: Record<string, string> = {}) =>
  request(`${base}${path}`, { headers: { authorization: `Bearer ${token}`, ...headers } });

test("a client holding its bound gets 429 for its next page, in each face's terms; another client reads; the budget comes back", async () => {
  const base = stack.gw.base;
  const page = `${stream}/records?seq_num=0`;
  const dsPath = `/ds/v1/stream/unsent`;
  const put = await request(`${base}${dsPath}`, {
    method: "PUT",
    headers: { "content-type": "application/octet-stream" },
  });
  assert.equal(put.statusCode, 201, await put.body.text());
  const posted = await request(`${base}${dsPath}`, {
    method: "POST",
    headers: { "content-type": "application/octet-stream" },
    body: "durable bytes",
  });
  assert.equal(posted.statusCode, 204, await posted.body.text());
  // Whether the DS page is cacheable: refused, it must say nothing of that.
  const dsPage = await read(base, `${dsPath}?offset=-1`, "reader");
  await dsPage.body.dump();
  assert.ok(dsPage.headers.etag, "the DS page has an ETag to lose");

  const a = stalledClient(base, "A");
  try {
    const first = await a.head(page);
    assert.equal(first[":status"], 200);
    const pageBytes = Number(first["content-length"]);
    assert.ok(pageBytes > 1_000_000, `${pageBytes} bytes`);
    // The page's whole pooled buffer, a power of two.
    await waitFor(async () => (await held(base)) === pooled(pageBytes));

    const second = await a.head(page);
    assert.equal(second[":status"], 429);
    assert.ok(second["retry-after"]);
    assert.equal(second["cache-control"], "no-store");
    assert.equal(second["server-timing"], undefined, "the refused page's own headers are gone");

    const refused = await read(base, page, "A");
    assert.equal(refused.statusCode, 429);
    const body = (await refused.body.json()) as Record<string, unknown>;
    assert.equal(body.code, "resource_exhausted");
    assert.equal(body.retryable, true);
    assert.match(
      String(body.message),
      /this client has \d+ bytes of pages and answers it has not taken yet/,
    );
    assert.match(String(body.message), /--unsent-answers-client-mb/);

    // S2's face: S2's error body.
    const s2 = await read(base, "/v1/streams/s/records?seq_num=0", "A", { "s2-basin": basin });
    assert.equal(s2.statusCode, 429);
    const s2Body = (await s2.body.json()) as Record<string, unknown>;
    assert.deepEqual(Object.keys(s2Body).sort(), ["code", "message"]);
    assert.match(String(s2Body.message), /--unsent-answers-client-mb/);

    // Durable Streams': its error body, and none of the page's caching.
    const ds = await read(base, `${dsPath}?offset=-1`, "A");
    assert.equal(ds.statusCode, 429);
    assert.equal(ds.headers.etag, undefined);
    assert.equal(ds.headers["cache-control"], "no-store");
    assert.equal(ds.headers["stream-next-offset"], undefined);
    assert.equal(ds.headers["x-content-type-options"], "nosniff");
    const dsBody = (await ds.body.json()) as Record<string, unknown>;
    assert.equal(dsBody.code, "resource_exhausted");

    // Another client, and the probes, are not held back by A's unread page.
    const b = await read(base, page, "B");
    assert.equal(b.statusCode, 200);
    assert.equal((await b.body.text()).length, pageBytes);
    assert.equal((await http(base, "GET", "/readyz")).status, 200);
  } finally {
    a.close();
  }
  await waitFor(async () => (await held(base)) === 0);
  const again = await read(base, page, "A");
  assert.equal(again.statusCode, 200);
  await again.body.dump();
});

test("past a share the answer leaves as a 429 without the page's headers; the gateway's last eighth is for clients holding nothing", async () => {
  const base = stack.gw.base;
  const page = `${stream}/records?seq_num=0`;
  const probe = await read(base, page, "probe");
  const P = pooled((await probe.body.text()).length);
  const dsPath = "/ds/v1/stream/unsent-large";
  const put = await request(`${base}${dsPath}`, {
    method: "PUT",
    headers: { "content-type": "application/octet-stream" },
    body: Buffer.alloc(1_000_000, 0x61),
  });
  assert.equal(put.statusCode, 201, await put.body.text());
  // A client may hold two pages and a quarter; the gateway four and a half, of which the last
  // eighth (about half a page) only for clients that hold nothing.
  const gw = await inProcessGateway([stack.star.address], {
    checkResponses: true,
    ds: DS,
    unsentAnswers: { maxBytes: Math.floor(4.5 * P), clientMaxBytes: Math.floor(2.25 * P) },
  });
  const a = stalledClient(gw.base, "A");
  const b = stalledClient(gw.base, "B");
  const d = stalledClient(gw.base, "D");
  try {
    // One at a time: which of them is refused is then certain.
    assert.equal((await a.head(page))[":status"], 200);
    assert.equal((await a.head(page))[":status"], 200);
    // Let in (a page would fit the share's rest), refused once its page is in hand.
    const third = await a.head(page);
    assert.equal(third[":status"], 429);
    assert.equal(third["cache-control"], "no-store");
    assert.equal(third["server-timing"], undefined, "the refused page's own headers are gone");
    const ds = await a.head(`${dsPath}?offset=-1`);
    assert.equal(ds[":status"], 429);
    assert.equal(ds.etag, undefined);
    assert.equal(ds["stream-next-offset"], undefined);
    assert.equal(ds["cache-control"], "no-store");
    assert.equal(ds["x-content-type-options"], "nosniff");
    assert.equal(await held(gw.base), 2 * P);
    // A revalidation answered 304 holds nothing: it is not refused for the page it does not send.
    const fresh = await read(gw.base, `${dsPath}?offset=-1`, "Z");
    await fresh.body.dump();
    const etag = String(fresh.headers.etag);
    await waitFor(async () => (await held(gw.base)) === 2 * P);
    const revalidated = await a.head(`${dsPath}?offset=-1`, { "if-none-match": etag });
    assert.equal(revalidated[":status"], 304);
    assert.equal(await held(gw.base), 2 * P);

    assert.equal((await b.head(page))[":status"], 200);
    // B holds a page now: the reserve is not its.
    assert.equal((await b.head(page))[":status"], 429);
    assert.equal(await held(gw.base), 3 * P);
    const c = await read(gw.base, page, "C");
    assert.equal(c.statusCode, 200, "a client holding nothing reads from the reserve");
    await c.body.dump();
    assert.equal((await d.head(page))[":status"], 200);
    const e = await read(gw.base, page, "E");
    assert.equal(e.statusCode, 429);
    const body = (await e.body.json()) as Record<string, unknown>;
    assert.match(String(body.message), /the gateway holds \d+ bytes .*--unsent-answers-mb/);
    // An append is never refused for it: its answer is an ack of a write done.
    const appended = await http(gw.base, "POST", `${stream}/records`, {
      records: [{ body: "ok" }],
    });
    assert.equal(appended.status, 200, appended.text);

    for (const client of [a, b, d]) client.close();
    await waitFor(async () => (await held(gw.base)) === 0);
    const again = await read(gw.base, page, "E");
    assert.equal(again.statusCode, 200);
    await again.body.dump();
  } finally {
    for (const client of [a, b, d]) client.close();
    await gw.close();
  }
});

test("a long-poll of a client at its share is refused before it waits", async () => {
  const base = stack.gw.base;
  const a = stalledClient(base, "A");
  try {
    assert.equal((await a.head(`${stream}/records?seq_num=0`))[":status"], 200);
    const tail = await http(base, "GET", `${stream}/records/tail`);
    // Refused at once; waiting first, it would answer only after its 25 s (the most a wait is).
    const poll = await request(
      `${base}${stream}/records?seq_num=${tail.json.tail.seq_num}&wait=25`,
      { headers: { authorization: "Bearer A" }, headersTimeout: 15_000 },
    );
    assert.equal(poll.statusCode, 429);
    await poll.body.dump();
  } finally {
    a.close();
  }
  await waitFor(async () => (await held(base)) === 0);
});
