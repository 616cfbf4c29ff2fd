import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { ChunkFault } from "./faults.ts";
import { createUrlFetcher } from "./url-fetcher.ts";

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
let handler: Handler = (_req, res) => res.end();
let open = 0;
let mostOpen = 0;
const server = createServer((req, res) => handler(req, res));
server.on("connection", (socket) => {
  open++;
  mostOpen = Math.max(mostOpen, open);
  socket.on("close", () => open--);
});
let base = "";

before(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

const never = new AbortController().signal;
const fault = (reason: string) => (err: unknown) =>
  err instanceof ChunkFault && err.reason === reason;

test("a 200 of exactly the planned size is the object; the query string is sent", async (t) => {
  const fetcher = createUrlFetcher({ connections: 2, timeoutMs: 5000 });
  t.after(() => fetcher.close());
  let seen = "";
  handler = (req, res) => {
    seen = req.url ?? "";
    res.end("hello");
  };
  const got = await fetcher.get(`${base}/b/k?X-Amz-Signature=s`, 5, never);
  assert.equal(got.toString(), "hello");
  assert.equal(seen, "/b/k?X-Amz-Signature=s");
});

test("statuses and sizes map to faults, never to bytes", async (t) => {
  const fetcher = createUrlFetcher({ connections: 2, timeoutMs: 5000 });
  t.after(() => fetcher.close());
  const cases: [number, string, string][] = [
    [404, "", "missing"],
    [
      403,
      "<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>",
      "forbidden",
    ],
    [500, "", "unavailable"],
    [503, "", "unavailable"],
    [504, "", "timeout"],
    [200, "toolong", "corrupt"],
    [200, "shrt", "corrupt"],
  ];
  for (const [status, body, reason] of cases) {
    handler = (_req, res) => {
      res.statusCode = status;
      res.end(body);
    };
    await assert.rejects(fetcher.get(`${base}/x`, 5, never), fault(reason), `${status} ${body}`);
  }
});

test("a connection refused is unavailable; a silent server is a timeout", async (t) => {
  const fetcher = createUrlFetcher({ connections: 2, timeoutMs: 200 });
  t.after(() => fetcher.close());
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  await assert.rejects(fetcher.get(`http://127.0.0.1:${port}/x`, 5, never), fault("unavailable"));
  handler = () => {};
  await assert.rejects(fetcher.get(`${base}/x`, 5, never), fault("timeout"));
});

test("connections per origin are bounded; further requests queue", async (t) => {
  server.closeAllConnections();
  mostOpen = open;
  const fetcher = createUrlFetcher({ connections: 3, timeoutMs: 5000 });
  t.after(() => fetcher.close());
  const waiting: ServerResponse[] = [];
  // Answered in rounds of three: all ten complete only if the queued ones go out as sockets free.
  let released = 0;
  handler = (_req, res) => {
    waiting.push(res);
    const flush = () => {
      for (const r of waiting.splice(0)) {
        released++;
        r.end("12345");
      }
    };
    if (waiting.length === 3 || released + waiting.length === 10) setImmediate(flush);
  };
  const all = await Promise.all(
    Array.from({ length: 10 }, () => fetcher.get(`${base}/x`, 5, never)),
  );
  assert.equal(all.length, 10);
  assert.ok(mostOpen <= 3, `${mostOpen} connections open at once`);
});

test("aborting a fetch rejects with the abort, not a fault", async (t) => {
  const fetcher = createUrlFetcher({ connections: 2, timeoutMs: 5000 });
  t.after(() => fetcher.close());
  handler = () => {};
  const c = new AbortController();
  const got = fetcher.get(`${base}/x`, 5, c.signal);
  setImmediate(() => c.abort());
  await assert.rejects(got, (err: unknown) => !(err instanceof ChunkFault));
});
