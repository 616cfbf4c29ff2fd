import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer, type ServerResponse } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { test } from "node:test";
import { waitFor } from "../../../test/harness/wait.ts";
import { chunkWriter, type StreamOutput } from "./chunk-writer.ts";

/** A server whose one response the test writes through chunkWriter; raw bytes come back. */
async function exchange(
  requestLine: string,
  write: (out: StreamOutput, res: ServerResponse) => void | Promise<void>,
): Promise<string> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    void (async () => {
      await write(chunkWriter(res), res);
      res.end();
    })();
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  try {
    const socket = connect((server.address() as AddressInfo).port, "127.0.0.1");
    socket.write(`${requestLine}\r\nHost: x\r\nConnection: close\r\n\r\n`);
    let raw = "";
    socket.setEncoding("latin1");
    socket.on("data", (d: string) => {
      raw += d;
    });
    await once(socket, "close");
    return raw;
  } finally {
    server.close();
  }
}

const body = (raw: string) => raw.slice(raw.indexOf("\r\n\r\n") + 4);

test("HTTP/1.1: the head goes with the first write; once it is out, each write or each event's parts is one chunk", async () => {
  const rest = Buffer.from('data: {"é":1}\n\n');
  const heads: unknown[] = [];
  const raw = await exchange("GET / HTTP/1.1", async (out, res) => {
    assert.ok(out.writeParts, "an HTTP/1.1 chunked response gets the socket writer");
    await new Promise((resolve) => out.write("retry: 1000\n\n", resolve));
    // Once sent, the head Node kept is one string every response shares.
    const sentHead = (res as ServerResponse & { _header?: unknown })._header;
    heads.push(sentHead, res.headersSent);
    out.writeParts?.(["event: batch\nid: 1\n", rest]);
    out.write(Buffer.from(": ping\n\n"));
    out.writeParts?.([]);
  });
  assert.match(raw, /^HTTP\/1\.1 200 OK\r\n/);
  assert.match(raw, /transfer-encoding: chunked/i);
  const event = `event: batch\nid: 1\n${rest.toString("latin1")}`;
  assert.equal(
    body(raw),
    `d\r\nretry: 1000\n\n\r\n` +
      `${Buffer.byteLength(event, "latin1").toString(16)}\r\n${event}\r\n` +
      `8\r\n: ping\n\n\r\n` +
      `0\r\n\r\n`,
  );
  assert.deepEqual(heads, ["HTTP/1.1 (head sent)\r\n\r\n", true]);
});

test("an event of any size is one chunk: copied whole when small, framed around its pieces when large", async () => {
  const sizes = [1, 16 * 1024 - 40, 16 * 1024, 64 * 1024];
  const events = sizes.map((n) => ({ head: "id: é\n", rest: Buffer.alloc(n, 0x62) }));
  const raw = await exchange("GET / HTTP/1.1", async (out) => {
    await new Promise((resolve) => out.write(":\n", resolve));
    for (const { head, rest } of events) out.writeParts?.([head, rest, "\n"]);
  });
  const chunk = ({ head, rest }: (typeof events)[number]) => {
    const bytes = Buffer.concat([Buffer.from(head), rest, Buffer.from("\n")]);
    return `${bytes.length.toString(16)}\r\n${bytes.toString("latin1")}\r\n`;
  };
  assert.equal(body(raw), `2\r\n:\n\r\n${events.map(chunk).join("")}0\r\n\r\n`);
});

test("writes made before the head is out go through the response, in order", async () => {
  const raw = await exchange("GET / HTTP/1.1", (out) => {
    out.write("a\n");
    out.writeParts?.(["b", "\n"]);
    out.write("c\n");
  });
  assert.equal(body(raw), "2\r\na\n\r\n1\r\nb\r\n1\r\n\n\r\n2\r\nc\n\r\n0\r\n\r\n");
});

test("a write's callback runs once the socket took it; backpressure and drain are the socket's", async () => {
  let called = false;
  let needDrain = false;
  let drained = false;
  await exchange("GET / HTTP/1.1", async (out) => {
    out.write("first\n");
    out.write("second\n", (err) => {
      called = !err;
    });
    await waitFor(() => called);
    const big = Buffer.alloc(4 << 20, 0x61);
    const ok = out.writeParts?.(["x", big]);
    needDrain = ok === false && out.writableNeedDrain;
    await new Promise<void>((resolve) =>
      out.once("drain", () => {
        drained = true;
        resolve();
      }),
    );
  });
  assert.ok(called);
  assert.ok(needDrain, "a write past the socket's buffer asks for a drain");
  assert.ok(drained);
});

test("HTTP/1.0 (no chunked encoding): the response writes as it is", async () => {
  const raw = await exchange("GET / HTTP/1.0", (out, res) => {
    assert.equal(out, res);
    out.write("event: ping\n\n");
  });
  assert.equal(body(raw), "event: ping\n\n");
});

test("a socket that keeps writes to send later keeps their bytes while other sockets write", async () => {
  const outs: StreamOutput[] = [];
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    outs.push(chunkWriter(res));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const port = (server.address() as AddressInfo).port;
  const clients = [connect(port, "127.0.0.1"), connect(port, "127.0.0.1")];
  try {
    const raws = ["", ""];
    clients.forEach((socket, i) => {
      socket.write("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
      socket.setEncoding("latin1");
      socket.on("data", (d: string) => {
        raws[i] += d;
      });
    });
    await waitFor(() => outs.length === 2);
    const [stalled, other] = outs as [StreamOutput, StreamOutput];
    for (const out of outs) await new Promise((resolve) => out.write(":\n", resolve));
    await waitFor(() => raws.every((raw) => raw.includes(":\n")));
    clients[0]?.pause();
    // Events of different sizes, each its own bytes, until the stalled socket keeps some.
    const event = (who: string, n: number) => [
      `id: ${who}${n}\n`,
      Buffer.alloc(100 + ((n * 37) % 4000), who.charCodeAt(0) + (n % 20)),
    ];
    let sent = 0;
    while (!stalled.writableNeedDrain) stalled.writeParts?.(event("a", sent++));
    for (let n = 0; n < 200; n++) other.writeParts?.(event("b", n));
    stalled.writeParts?.(event("a", sent++));
    for (const out of outs) out.end();
    clients[0]?.resume();
    await Promise.all(clients.map((socket) => once(socket, "close")));
    const chunks = (parts: (string | Buffer)[][]) =>
      parts
        .map((p) => {
          const bytes = Buffer.concat(p.map((x) => (typeof x === "string" ? Buffer.from(x) : x)));
          return `${bytes.length.toString(16)}\r\n${bytes.toString("latin1")}\r\n`;
        })
        .join("");
    const expect = (who: string, count: number) =>
      `2\r\n:\n\r\n${chunks(Array.from({ length: count }, (_, n) => event(who, n)))}0\r\n\r\n`;
    assert.ok(sent > 10, `the stalled socket kept writes (${sent} sent)`);
    assert.equal(body(raws[0] as string), expect("a", sent));
    assert.equal(body(raws[1] as string), expect("b", 200));
  } finally {
    for (const socket of clients) socket.destroy();
    server.close();
  }
});
