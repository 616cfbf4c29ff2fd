import assert from "node:assert/strict";
import { once } from "node:events";
import net, { type AddressInfo } from "node:net";
import { test } from "node:test";
import Fastify from "fastify";
import { request } from "undici";
import { waitFor } from "../../../test/harness/wait.ts";
import { AnswerBudget } from "./answer-budget.ts";
import { errorsPlugin } from "./errors-plugin.ts";
import { unsentAnswersPlugin } from "./unsent-answers.ts";

test("HTTP/1.1: an answer its client does not read is cut with its connection; a read one is not", async (t) => {
  const app = Fastify();
  await app.register(unsentAnswersPlugin, { timeoutMs: 200 });
  // More than the socket buffers on both sides hold: it cannot all leave unread.
  const big = Buffer.alloc(64 * 1024 * 1024, 0x61);
  app.get("/big", async () => big);
  app.get("/small", async () => "ok");
  await app.listen({ port: 0, host: "127.0.0.1" });
  t.after(() => app.close());
  const { port } = app.server.address() as AddressInfo;

  const stalled = net.connect(port, "127.0.0.1");
  await once(stalled, "connect");
  stalled.pause();
  stalled.write("GET /big HTTP/1.1\r\nhost: x\r\n\r\n");
  stalled.on("error", () => {});
  // The server's side goes; the paused client would see it only once it reads.
  const open = () =>
    new Promise<number>((resolve, reject) =>
      app.server.getConnections((err, n) => (err ? reject(err) : resolve(n))),
    );
  const deadline = performance.now() + 20_000;
  while ((await open()) > 0) {
    assert.ok(performance.now() < deadline, "not cut within 20 s");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  let received = 0;
  stalled.on("data", (chunk: Buffer) => {
    received += chunk.length;
  });
  stalled.resume();
  await once(stalled, "close");
  assert.ok(received < big.length, `${received} bytes of ${big.length}: cut, not sent whole`);

  const res = await fetch(`http://127.0.0.1:${port}/small`);
  assert.equal(await res.text(), "ok");
});

const PAGE = [{ body: Buffer.alloc(400 * 1024), headers: [] }];

/** An app whose `/page` has its page in hand, then waits for `answer()` before it writes. */
async function server(budget: AnswerBudget) {
  const app = Fastify();
  await app.register(errorsPlugin);
  await app.register(unsentAnswersPlugin, { timeoutMs: 60_000, budget });
  const waiting: (() => void)[] = [];
  app.get("/page", async (_req, reply) => {
    reply.expectPage(PAGE);
    await new Promise<void>((resolve) => waiting.push(resolve));
    return "x".repeat(100);
  });
  const base = await app.listen({ host: "127.0.0.1", port: 0 });
  const answer = () => {
    for (const resolve of waiting.splice(0)) resolve();
  };
  return {
    base,
    waiting: () => waiting.length,
    answer,
    /** Routes still waiting (a failed assertion) answer first, or the close would wait for them. */
    close: () => {
      answer();
      return app.close();
    },
  };
}

test("reads in flight count from when their page is in hand; the answer then counts instead", async (t) => {
  // Room for two pages in hand (2 x 800 KiB), not three.
  const budget = new AnswerBudget({ maxBytes: 1 << 30, clientMaxBytes: 2 * 800 * 1024 });
  const s = await server(budget);
  t.after(() => s.close());
  const get = () => request(`${s.base}/page`);
  const first = get();
  const second = get();
  await waitFor(() => s.waiting() === 2, { message: "two reads hold their pages" });
  assert.equal(budget.held, 2 * 800 * 1024);

  let third: Awaited<ReturnType<typeof get>> | undefined;
  const asked = get().then((res) => {
    third = res;
  });
  await waitFor(() => third !== undefined || s.waiting() === 3, { message: "the third read" });
  await asked;
  assert.ok(third, "the third read waited with its page in hand");
  assert.equal(third.statusCode, 429);
  const body = (await third.body.json()) as { message: string };
  assert.match(body.message, /--unsent-answers-client-mb/);
  assert.equal(s.waiting(), 2, "the refused read never waited with its page");

  s.answer();
  for (const res of await Promise.all([first, second])) {
    assert.equal(res.statusCode, 200);
    await res.body.text();
  }
  await waitFor(() => budget.held === 0, { message: "the answers taken, nothing is held" });
  assert.equal(budget.clients, 0);
});

test("a read whose client leaves while its page is in hand gives its share back", async (t) => {
  const budget = new AnswerBudget({ maxBytes: 1 << 30, clientMaxBytes: 1 << 30 });
  const s = await server(budget);
  t.after(() => s.close());
  const gone = new AbortController();
  const read = request(`${s.base}/page`, { signal: gone.signal }).catch((err: unknown) => err);
  await waitFor(() => s.waiting() === 1, { message: "the read holds its page" });
  assert.equal(budget.held, 800 * 1024);
  gone.abort();
  assert.ok((await read) instanceof Error);
  await waitFor(() => budget.held === 0, {
    message: "the share comes back when the client leaves",
  });
  // The route answering afterwards counts nothing again.
  s.answer();
  await waitFor(() => s.waiting() === 0, { message: "the route answered" });
  assert.equal(budget.held, 0);
  assert.equal(budget.clients, 0);
});
