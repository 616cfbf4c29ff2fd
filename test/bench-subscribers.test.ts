// The subscriber processes of `bench:sse` (bench/sse-subscribers.ts) read their sockets raw: the
// bench's missed and repeated counts rest on their reading of the HTTP head, the chunked
// framing and the event lines, however the bytes are cut into reads.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer as createHttpServer, type ServerResponse } from "node:http";
import { createServer as createNetServer, type Server, type Socket } from "node:net";
import { resolve } from "node:path";
import { createInterface } from "node:readline";
import { after, test } from "node:test";

const SCRIPT = resolve(import.meta.dirname, "../bench/sse-subscribers.ts");
const servers: Server[] = [];
after(() => {
  for (const s of servers) s.close();
});

interface Report {
  arrived: boolean[][];
  failed: number;
  ended: number;
  repeated: number;
  extra: number;
  errors: string[];
}

/** Runs one subscriber process over `urls` and returns what it reports. */
async function subscribe(kind: "nova" | "nchan", urls: string[], rounds: number) {
  const child = spawn(process.execPath, [SCRIPT], { stdio: ["pipe", "pipe", "inherit"] });
  try {
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const next = async () => JSON.parse((await lines.next()).value as string);
    child.stdin.write(
      `${JSON.stringify({ cmd: "connect", kind, urls, rounds, first: 0, concurrency: 4 })}\n`,
    );
    const connected = await next();
    // The wait ends once every subscriber has every record or its stream ended; the idle bound
    // is only for a reader that lost records, and is long enough that a loaded machine's slow
    // writes (a byte each 2 ms timer) never end it early.
    child.stdin.write(`${JSON.stringify({ cmd: "await", idleMs: 10_000, capMs: 30_000 })}\n`);
    const m = await next();
    const bytes = Buffer.from(m.arrivals as string, "base64");
    const times = new Float64Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 8);
    const arrived = urls.map((_, i) =>
      Array.from({ length: rounds }, (_, r) => !Number.isNaN(times[i * rounds + r] as number)),
    );
    return { connected, report: { ...m, arrived } as Report };
  } finally {
    // The servers may still be writing when the reader goes: its exit is awaited so that no
    // reset lands after the test has ended.
    const exited = child.exitCode === null ? once(child, "exit") : Promise.resolve();
    child.kill();
    await exited;
  }
}

function listen(server: Server): Promise<number> {
  servers.push(server);
  return new Promise((done) => {
    server.listen(0, "127.0.0.1", () => done((server.address() as { port: number }).port));
  });
}

/**
 * Writes `text` a few bytes at a time, each piece its own write (and chunk, when chunked), a
 * moment apart so that most reach the reader in reads of their own.
 */
async function dribble(out: ServerResponse | Socket, text: string, piece: number): Promise<void> {
  for (let i = 0; i < text.length && !out.destroyed; i += piece) {
    out.write(text.slice(i, i + piece));
    await new Promise((r) => setTimeout(r, 2));
  }
}

const novaEvent = (last: number, count: number) =>
  `id: ${last},${count},${count * 10}\nevent: batch\ndata: {"records":[${'"x",'.repeat(40)}"x"]}\n\n`;

test("nova's chunked events cut anywhere: every record once, the error event and the end told", async () => {
  const port = await listen(
    createHttpServer((req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("retry: 1000\n\nevent: ping\ndata: {}\n\n");
      if (req.url === "/error") {
        res.end('event: error\ndata: {"code":"gone"}\n\n');
        return;
      }
      // seq_nums 0-1, 2, 3-4: the id's count says how many records a batch holds.
      const events = novaEvent(1, 2) + novaEvent(2, 3) + novaEvent(4, 5);
      void dribble(res, events, req.url === "/sevens" ? 7 : 1);
    }),
  );
  const { connected, report } = await subscribe(
    "nova",
    ["/sevens", "/ones", "/error"].map((path) => `http://127.0.0.1:${port}${path}`),
    5,
  );
  assert.equal(connected.ready, 3);
  assert.deepEqual(report.arrived, [
    Array(5).fill(true),
    Array(5).fill(true),
    Array(5).fill(false),
  ]);
  assert.equal(report.repeated, 0);
  assert.equal(report.extra, 0);
  assert.equal(report.ended, 1);
  assert.ok(report.errors.some((e) => e.includes('error event {"code":"gone"}')));
});

test("nchan's unchunked messages cut anywhere: every round once, ready at the first bytes", async () => {
  const port = await listen(
    createNetServer((socket) => {
      // The reader is killed at the end of the test: a reset then is expected, not a failure.
      socket.on("error", () => socket.destroy());
      socket.once("data", () => {
        socket.write("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n");
        const messages = [0, 1, 1, 2].map((r) => `data: r${r}:${"y".repeat(100)}\n\n`).join("");
        void dribble(socket, `: hi\n\n${messages}`, 5);
      });
    }),
  );
  const { connected, report } = await subscribe("nchan", [`http://127.0.0.1:${port}/sub/c0`], 3);
  assert.equal(connected.ready, 1);
  assert.deepEqual(report.arrived, [[true, true, true]]);
  assert.equal(report.repeated, 1);
});

test("an answer other than 200 fails the subscriber with its status and body", async () => {
  const port = await listen(
    createHttpServer((_req, res) => {
      res.writeHead(404, { "content-type": "application/json" });
      res.end('{"code":"not_found"}');
    }),
  );
  const { connected, report } = await subscribe("nova", [`http://127.0.0.1:${port}/`], 1);
  assert.equal(connected.ready, 0);
  assert.equal(connected.failed, 1);
  assert.match(report.errors[0] as string, /subscriber 0: 404 .*not_found/s);
});
