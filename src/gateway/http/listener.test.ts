import assert from "node:assert/strict";
import { once } from "node:events";
import type http from "node:http";
import http2 from "node:http2";
import net from "node:net";
import { test } from "node:test";
import Fastify from "fastify";
import { request } from "undici";
import { waitFor } from "../../../test/harness/wait.ts";
import { gatewayServer } from "./listener.ts";

const SETTINGS = {
  headersTimeoutMs: 10_000,
  keepAliveTimeoutMs: 60_000,
  keepAliveHintS: 5,
  h2MaxStreams: 10,
};
const REQUEST = "GET / HTTP/1.1\r\nhost: x\r\n\r\n";

/** Counts the complete responses (each ending in "ok") a socket receives. */
function received(socket: net.Socket): { until(n: number): Promise<number> } {
  let text = "";
  let ended = false;
  const count = () => text.split("\r\n\r\nok").length - 1;
  socket.setEncoding("utf8");
  socket.on("data", (chunk: string) => {
    text += chunk;
    socket.emit("progress");
  });
  socket.on("error", () => {});
  socket.on("close", () => {
    ended = true;
    socket.emit("progress");
  });
  return {
    async until(n) {
      while (count() < n && !ended) await once(socket, "progress");
      return count();
    },
  };
}

test("closing answers a request already in a kept-alive connection's socket before it closes idle ones", async (t) => {
  const server = gatewayServer((_req, res) => {
    res.setHeader("content-length", 2);
    res.end("ok");
  }, SETTINGS);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as net.AddressInfo;
  const client = net.connect(port, "127.0.0.1");
  t.after(() => {
    client.destroy();
    server.closeAllConnections();
  });
  const answers = received(client);
  client.write(REQUEST);
  assert.equal(await answers.until(1), 1);

  // The connection is idle. The next request reaches the server's socket (loopback delivers in
  // the write) before the server closes, in the same turn of its event loop.
  client.write(REQUEST);
  const closed = once(server, "close");
  server.close();
  assert.equal(await answers.until(2), 2, "the request in the socket was answered");
  await closed;
});

test("closing through Fastify, which closes idle connections itself first, answers that request too", async (t) => {
  const app = Fastify({
    serverFactory: (handler) => gatewayServer(handler, SETTINGS) as unknown as http.Server,
    // As the gateway: requests are served while it closes.
    return503OnClosing: false,
  });
  app.get("/", async () => "ok");
  await app.listen({ port: 0, host: "127.0.0.1" });
  const { port } = app.server.address() as net.AddressInfo;
  const client = net.connect(port, "127.0.0.1");
  t.after(() => {
    client.destroy();
    app.server.closeAllConnections();
  });
  const answers = received(client);
  client.write(REQUEST);
  assert.equal(await answers.until(1), 1);

  client.write(REQUEST);
  const closed = app.close();
  assert.equal(await answers.until(2), 2, "the request in the socket was answered");
  await closed;
});

test("a connection whose request arrived while the event loop was stalled past the timeout is served", async (t) => {
  const server = gatewayServer(
    (_req, res) => {
      res.setHeader("content-length", 2);
      res.end("ok");
    },
    { ...SETTINGS, headersTimeoutMs: 50 },
  );
  // As the gateway's client-error handler answers a connection that timed out.
  server.on("clientError", (_err: Error, socket: net.Socket) =>
    socket.end("HTTP/1.1 408 Request Timeout\r\nconnection: close\r\ncontent-length: 0\r\n\r\n"),
  );
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as net.AddressInfo;
  const accepted = once(server, "connection");
  const client = net.connect(port, "127.0.0.1");
  t.after(() => {
    client.destroy();
    server.closeAllConnections();
    server.close();
  });
  const answers = received(client);
  await accepted;
  // The request reaches the server's socket (loopback delivers in the write); then the loop
  // stalls past the 50 ms headers timeout before it gets to read it.
  client.write(REQUEST);
  const until = Date.now() + 150;
  while (Date.now() < until);
  assert.equal(await answers.until(1), 1, "answered, not cut with 408");
});

/** Listens on a free port; an HTTP/2 session to it; both closed after the test. */
async function listenWithH2(
  server: ReturnType<typeof gatewayServer>,
  t: { after(fn: () => void): void },
): Promise<{ port: number; session: http2.ClientHttp2Session }> {
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as net.AddressInfo;
  const session = http2.connect(`http://127.0.0.1:${port}`);
  t.after(() => {
    session.destroy();
    server.closeAllConnections();
    server.close();
  });
  return { port, session };
}

test("HTTP/1.1 responses advertise the keep-alive hint, not the idle timeout; HTTP/2 and closes none", async (t) => {
  const server = gatewayServer(
    (_req, res) => {
      res.setHeader("content-length", 2);
      res.end("ok");
    },
    { ...SETTINGS, keepAliveHintS: 3 },
  );
  const { port, session } = await listenWithH2(server, t);
  const kept = await request(`http://127.0.0.1:${port}/`);
  await kept.body.text();
  assert.equal(kept.headers["keep-alive"], "timeout=3");
  assert.equal(kept.headers.connection, "keep-alive");

  const closed = await request(`http://127.0.0.1:${port}/`, { headers: { connection: "close" } });
  await closed.body.text();
  assert.equal(closed.headers.connection, "close");
  assert.equal(closed.headers["keep-alive"], undefined);

  const stream = session.request({ ":path": "/" });
  const [headers] = (await once(stream, "response")) as [http2.IncomingHttpHeaders];
  stream.resume();
  await once(stream, "end");
  assert.equal(headers[":status"], 200);
  assert.equal(headers["keep-alive"], undefined);
});

test("an HTTP/2 method HTTP/1.1 would refuse is 501 in the contract's body, never handed on", async (t) => {
  let handled = 0;
  const server = gatewayServer((_req, res) => {
    handled++;
    res.end("ok");
  }, SETTINGS);
  const { session } = await listenWithH2(server, t);
  const answer = async (method: string) => {
    const stream = session.request({ ":method": method, ":path": "/livez" });
    const [headers] = (await once(stream, "response")) as [http2.IncomingHttpHeaders];
    let body = "";
    stream.setEncoding("utf8");
    for await (const chunk of stream) body += chunk;
    return { status: headers[":status"], body };
  };
  const brew = await answer("BREW");
  assert.equal(brew.status, 501);
  assert.deepEqual(JSON.parse(brew.body).code, "unimplemented");
  assert.equal(handled, 0);
  assert.equal((await answer("GET")).status, 200);
  assert.equal(handled, 1);
});

test("the cut reaches a connection that has sent nothing yet, which the close would wait for", async (t) => {
  const server = gatewayServer((_req, res) => res.end("ok"), {
    ...SETTINGS,
    headersTimeoutMs: 60_000,
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as net.AddressInfo;
  const silent = net.connect(port, "127.0.0.1");
  silent.on("error", () => {});
  t.after(() => silent.destroy());
  await once(silent, "connect");
  const closed = once(server, "close");
  server.close();
  // Routed nowhere yet: the close waits for it (up to the headers timeout) until the cut.
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(silent.destroyed, false);
  server.closeAllConnections();
  await waitFor(() => silent.closed, { message: "the silent connection cut", timeoutMs: 10_000 });
  await closed;
});
