import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { type AddressInfo, connect, type Socket } from "node:net";
import { test } from "node:test";
import { waitFor } from "../../../test/harness/wait.ts";
import { releaseParser } from "./parser-release.ts";

interface Served {
  req: IncomingMessage;
  res: ServerResponse;
  released: boolean;
}

/** A server whose responses open as an event stream that closes its connection, parser given back. */
async function withServer(
  run: (port: number, served: Served[]) => Promise<void>,
  release = (req: IncomingMessage) => releaseParser(req),
): Promise<void> {
  const served: Served[] = [];
  const server = createServer((req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream", connection: "close" });
    res.write(": open\n\n");
    // As a route does: after the parser has read the request (never inside its turn).
    setImmediate(() => served.push({ req, res, released: release(req) }));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  try {
    await run((server.address() as AddressInfo).port, served);
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

function client(port: number): { socket: Socket; text: () => string } {
  const socket = connect(port, "127.0.0.1");
  let raw = "";
  socket.setEncoding("latin1");
  socket.on("data", (d: string) => {
    raw += d;
  });
  return { socket, text: () => raw };
}

const GET = "GET /s HTTP/1.1\r\nHost: x\r\n\r\n";

test("a GET's parser goes back to Node: the response still streams, and later requests on the connection are not parsed", async () => {
  await withServer(async (port, served) => {
    const { socket, text } = client(port);
    socket.write(GET);
    await waitFor(() => served.length === 1);
    const [first] = served as [Served];
    assert.equal(first.released, true);
    const serverSocket = first.req.socket as Socket & { parser?: unknown };
    assert.equal(serverSocket.parser, null);
    for (const event of ["data", "end"]) {
      const names = serverSocket.listeners(event).map((l) => l.name);
      assert.ok(!names.some((n) => n.startsWith("bound socketOn")), `${event}: ${names.join()}`);
    }
    // A pipelined request after it is dropped, not answered.
    socket.write(GET);
    first.res.write("data: after\n\n");
    await waitFor(() => text().includes("data: after"));
    assert.equal(served.length, 1);
    assert.match(text(), /^HTTP\/1\.1 200 OK\r\n/);
    assert.match(text(), /\r\nconnection: close\r\n/i);
    assert.equal(text().split("HTTP/1.1").length, 2);
    // Ending the response closes the connection, as `connection: close` says.
    first.res.end();
    await once(socket, "close");
    assert.ok(text().endsWith("0\r\n\r\n"));
  });
});

test("a client that goes away closes the response; one that half-closes does too", async () => {
  await withServer(async (port, served) => {
    const gone = client(port);
    gone.socket.write(GET);
    await waitFor(() => served.length === 1);
    const closed = once((served[0] as Served).res, "close");
    gone.socket.destroy();
    await closed;

    const half = client(port);
    half.socket.write(GET);
    await waitFor(() => served.length === 2);
    const second = served[1] as Served;
    assert.equal(second.released, true);
    const secondClosed = once(second.res, "close");
    half.socket.end();
    await secondClosed;
    assert.equal(second.res.writableFinished, false);
  });
});

test("a request whose body is not read yet keeps its parser", async () => {
  await withServer(async (port, served) => {
    const { socket } = client(port);
    socket.write("POST /s HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc");
    await waitFor(() => served.length === 1);
    const [first] = served as [Served];
    assert.equal(first.released, false);
    assert.notEqual((first.req.socket as Socket & { parser?: unknown }).parser, null);
    socket.destroy();
  });
});
