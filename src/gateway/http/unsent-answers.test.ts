import assert from "node:assert/strict";
import { once } from "node:events";
import net, { type AddressInfo } from "node:net";
import { test } from "node:test";
import Fastify from "fastify";
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
