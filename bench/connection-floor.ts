// `npm run bench:connection-floor`: what Node itself holds for one idle SSE connection, the floor
// under the gateway's memory and connect cost per subscriber. Each server is a separate process
// (this file with `--serve MODE`) that answers every GET with an event-stream head, `retry:` and
// one `event: ping`, and keeps the connection: `net` (a `node:net` server writing the response
// by hand), `http` (`node:http`, keep-alive), `http-released` (`node:http` with `connection:
// close` and the parser given back, as the gateway's SSE responses: src/gateway/http/
// parser-release.ts), `fastify-released` (the same behind a Fastify route that takes the reply
// over, with a logger as the gateway has: what a Fastify request adds). A client process
// (bench/sse-subscribers.ts) opens BENCH_BASE (default 1000) connections, then BENCH_MORE
// (default 4000) more, 1000 per source address (127.0.0.2, .3, ...); the server collects
// garbage every second (--expose-gc). Printed per server: RSS, JS heap and server CPU per
// connection over the BENCH_MORE, and the connections per second.
// Then the floor under a delivered event: the server writes BENCH_ROUNDS (default 20) rounds of
// one 1 KiB event to every connection (a pause of 50 ms between rounds, a turn of the event
// loop every 100 writes, as a hub's fan-out slices), one write call per event: on `net` a
// buffer with its chunk framing, on `http` a string through `res.write`. Printed: the server's
// CPU per delivered event, user and system apart (`process.cpuUsage`).
// Both processes need a file-descriptor limit above the connections (`ulimit -n`). No thresholds.

import "../scripts/help-first.ts";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import type { Server } from "node:net";
import { createServer as createNetServer } from "node:net";
import { resolve } from "node:path";
import { createInterface } from "node:readline";
import Fastify from "fastify";
import { releaseParser } from "../src/gateway/http/parser-release.ts";
import { cpuSeconds, rssBytes } from "../test/harness/proc-stats.ts";

const MODES = ["net", "http", "http-released", "fastify-released"] as const;
type Mode = (typeof MODES)[number];
const BASE = Number(process.env.BENCH_BASE ?? 1000);
const MORE = Number(process.env.BENCH_MORE ?? 4000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const SLICE = 100;
const PAUSE_MS = 50;
const PER_ADDRESS = 1000;
const FIRST_EVENTS = "retry: 1500\n\nevent: ping\ndata: {}\n\n";
const SSE_HEAD = { "content-type": "text/event-stream", "cache-control": "no-cache" };

/** One event to one connection: one write call. */
type Deliver = () => void;

function serve(mode: Mode): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  const collecting = setInterval(() => gc?.(), 1000);
  const deliveries: Deliver[] = [];
  const event = `event: batch\ndata: ${"x".repeat(1024)}\n\n`;
  const chunk = Buffer.from(`${event.length.toString(16)}\r\n${event}\r\n`);
  const server: Server =
    mode === "fastify-released"
      ? fastifyServer(deliveries, event)
      : mode === "net"
        ? createNetServer((socket) => {
            deliveries.push(() => socket.write(chunk));
            const body = `${FIRST_EVENTS.length.toString(16)}\r\n${FIRST_EVENTS}\r\n`;
            socket.once("data", () => {
              socket.write(
                "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n" +
                  `transfer-encoding: chunked\r\n\r\n${body}`,
              );
              socket.resume();
            });
          })
        : createHttpServer((req, res) => {
            if (mode === "http-released") return holdReleased(req, res, deliveries, event);
            res.writeHead(200, SSE_HEAD);
            res.write(FIRST_EVENTS);
            deliveries.push(() => res.write(event));
          });
  server.listen(0, "127.0.0.1", () => {
    const { port } = server.address() as { port: number };
    process.stdout.write(`${JSON.stringify({ port })}\n`);
  });
  process.on("SIGUSR2", () => {
    gc?.();
    process.stdout.write(`${JSON.stringify({ heap: process.memoryUsage().heapUsed })}\n`);
  });
  process.on("SIGUSR1", async () => {
    clearInterval(collecting);
    const started = process.cpuUsage();
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < deliveries.length; i++) {
        (deliveries[i] as Deliver)();
        if (i % SLICE === SLICE - 1) await new Promise((r) => setImmediate(r));
      }
      await new Promise((r) => setTimeout(r, PAUSE_MS));
    }
    const { user, system } = process.cpuUsage(started);
    const events = ROUNDS * deliveries.length;
    process.stdout.write(
      `${JSON.stringify({ userUs: user / events, systemUs: system / events })}\n`,
    );
  });
}

/** A Fastify route that takes its reply over, as the gateway's SSE routes do. */
function fastifyServer(deliveries: Deliver[], event: string): Server {
  const app = Fastify({ logger: { level: "warn" } });
  app.get("/s", (req, reply) => {
    reply.hijack();
    holdReleased(req.raw, reply.raw, deliveries, event);
  });
  void app.ready();
  return app.server;
}

/** An SSE response with `connection: close`, its parser given back after the parser's turn. */
function holdReleased(
  req: IncomingMessage,
  res: ServerResponse,
  deliveries: Deliver[],
  event: string,
): void {
  res.writeHead(200, { ...SSE_HEAD, connection: "close" });
  res.write(FIRST_EVENTS);
  deliveries.push(() => res.write(event));
  setImmediate(() => releaseParser(req));
}

/** Lines of JSON from a child, awaited one at a time. */
function jsonLines(child: ChildProcess): () => Promise<Record<string, unknown>> {
  const it = createInterface({ input: child.stdout as NodeJS.ReadableStream })[
    Symbol.asyncIterator
  ]();
  return async () => {
    const { value, done } = await it.next();
    if (done) throw new Error("the process exited");
    return JSON.parse(value as string) as Record<string, unknown>;
  };
}

function procStatus(pid: number): { rssKib: number; cpuMs: number } {
  return { rssKib: rssBytes(pid) / 1024, cpuMs: cpuSeconds(pid) * 1000 };
}

const settle = () => new Promise((r) => setTimeout(r, 2500));

async function measure(mode: Mode) {
  const server = spawn(process.execPath, ["--expose-gc", import.meta.filename, "--serve", mode], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const client = spawn(process.execPath, [resolve(import.meta.dirname, "sse-subscribers.ts")], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  try {
    const fromServer = jsonLines(server);
    const fromClient = jsonLines(client);
    const { port } = (await fromServer()) as { port: number };
    const url = `http://127.0.0.1:${port}/s`;
    let address = 2;
    const connect = async (n: number) => {
      let failed = 0;
      for (let done = 0; done < n; done += PER_ADDRESS) {
        const urls = Array.from({ length: Math.min(PER_ADDRESS, n - done) }, () => url);
        const cmd = { cmd: "connect", kind: "nova", urls, rounds: 1, first: 1, concurrency: 100 };
        client.stdin?.write(
          `${JSON.stringify({ ...cmd, localAddress: `127.0.0.${address++}` })}\n`,
        );
        for (;;) {
          const m = await fromClient();
          if (m.type !== "connected") continue;
          failed += m.failed as number;
          break;
        }
      }
      return failed;
    };
    const heap = async () => {
      server.kill("SIGUSR2");
      return (await fromServer()).heap as number;
    };
    let failed = await connect(BASE);
    await settle();
    const before = { ...procStatus(server.pid as number), heap: await heap() };
    const started = performance.now();
    failed += await connect(MORE);
    const seconds = (performance.now() - started) / 1000;
    const cpuMs = procStatus(server.pid as number).cpuMs - before.cpuMs;
    await settle();
    const after = { ...procStatus(server.pid as number), heap: await heap() };
    server.kill("SIGUSR1");
    const { userUs, systemUs } = (await fromServer()) as { userUs: number; systemUs: number };
    return {
      mode,
      failed,
      rssKib: (after.rssKib - before.rssKib) / MORE,
      heapKib: (after.heap - before.heap) / 1024 / MORE,
      cpuUs: (cpuMs * 1000) / MORE,
      perSecond: MORE / seconds,
      userUs,
      systemUs,
    };
  } finally {
    client.kill();
    server.kill();
    await Promise.all([once(client, "exit"), once(server, "exit")]);
  }
}

async function main(): Promise<void> {
  console.log(
    `Idle SSE connections: ${BASE} open, then ${MORE} more measured; Node ${process.version}`,
  );
  console.log(`Then ${ROUNDS} rounds of one 1 KiB event to each of the ${BASE + MORE}`);
  console.log(
    "server            failed  RSS KiB/conn  heap KiB/conn  CPU µs/conn  conn/s  event µs  user  system",
  );
  for (const mode of MODES) {
    const r = await measure(mode);
    console.log(
      `${r.mode.padEnd(16)}  ${String(r.failed).padStart(6)}  ${r.rssKib.toFixed(1).padStart(12)}` +
        `  ${r.heapKib.toFixed(1).padStart(13)}  ${r.cpuUs.toFixed(0).padStart(11)}` +
        `  ${r.perSecond.toFixed(0).padStart(6)}` +
        `  ${(r.userUs + r.systemUs).toFixed(1).padStart(8)}  ${r.userUs.toFixed(1).padStart(4)}` +
        `  ${r.systemUs.toFixed(1).padStart(6)}`,
    );
  }
}

if (process.argv[2] === "--serve") serve(process.argv[3] as Mode);
else await main();
