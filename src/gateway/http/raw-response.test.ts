import assert from "node:assert/strict";
import { once } from "node:events";
import type { ServerResponse } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { test } from "node:test";
import Fastify from "fastify";
import { waitFor } from "../../../test/harness/wait.ts";
import { takeOverConnection } from "./raw-response.ts";

test("a response that holds its connection keeps its head and headers once, and is written as before", async () => {
  const app = Fastify();
  let res: ServerResponse | undefined;
  app.get("/events", (_req, reply) => {
    // Set by a hook in the gateway (CORS): carried into the head.
    reply.header("access-control-allow-origin", "*");
    res = takeOverConnection(reply, 200, { "content-type": "text/event-stream" });
    res.write(": open\n\n");
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const socket = connect((app.server.address() as AddressInfo).port, "127.0.0.1");
  try {
    let text = "";
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => {
      text += chunk;
    });
    socket.write("GET /events HTTP/1.1\r\nhost: x\r\n\r\n");
    await waitFor(() => text.includes(": open\n\n"), { message: "the head and the first write" });
    const head = text.slice(0, text.indexOf("\r\n\r\n")).toLowerCase();
    assert.match(head, /^http\/1\.1 200 ok\r\n/);
    assert.match(head, /\r\ncontent-type: text\/event-stream\r\n/);
    assert.match(head, /\r\naccess-control-allow-origin: \*\r\n/);
    assert.match(head, /\r\nconnection: close\r\n/);
    assert.doesNotMatch(head, /keep-alive/);
    assert.ok(res);
    // The head is sent and kept as one string; the header map is gone, as before any was set.
    assert.equal(res.headersSent, true);
    assert.equal(typeof (res as { _header?: unknown })._header, "string");
    assert.equal(res.getHeader("content-type"), undefined);
    assert.deepEqual(Object.keys(res.getHeaders()), []);
    res.write("data: 1\n\n");
    res.end();
    await once(socket, "end");
    // Chunked, as Node frames a response of unknown length.
    assert.ok(text.endsWith("\r\ndata: 1\n\n\r\n0\r\n\r\n"), JSON.stringify(text.slice(-40)));
  } finally {
    socket.destroy();
    await app.close();
  }
});
