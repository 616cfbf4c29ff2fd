import assert from "node:assert/strict";
import { test } from "node:test";
import Fastify from "fastify";
import { Client } from "undici";
import { waitFor } from "../../../test/harness/wait.ts";
import { Drain, drainPlugin } from "./drain.ts";

async function server(drain: Drain, handler: () => Promise<string> = async () => "ok") {
  const app = Fastify();
  // As the gateway's listener does for every HTTP/1.1 response that may keep its connection.
  app.addHook("onRequest", async (_req, reply) => {
    reply.raw.setHeader("keep-alive", "timeout=5");
  });
  await app.register(drainPlugin, { drain });
  app.get("/x", handler);
  const base = await app.listen({ host: "127.0.0.1", port: 0 });
  return { app, base };
}

test("draining through the delay serves as before; hurry() ends the delay; then the app closes", async (t) => {
  const drain = new Drain();
  const { app, base } = await server(drain);
  t.after(() => app.close());
  const client = new Client(base);
  t.after(() => client.close());
  assert.equal(drain.draining, false);

  const done = drain.shutDown(app, 60_000, 1000);
  assert.equal(drain.draining, true);
  assert.equal(drain.closing, false);
  const during = await client.request({ path: "/x", method: "GET" });
  assert.equal(during.statusCode, 200);
  assert.equal(during.headers.connection, "keep-alive");
  assert.equal(during.headers["keep-alive"], "timeout=5");
  await during.body.text();

  drain.hurry();
  await done;
  assert.equal(drain.closing, true);
  await assert.rejects(fetch(`${base}/x`));
});

test("a request in flight when closing starts is answered, with connection: close", async (t) => {
  const drain = new Drain();
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  let arrived: () => void = () => {};
  const inFlight = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  const { app, base } = await server(drain, async () => {
    arrived();
    await held;
    return "late";
  });
  t.after(() => app.close());
  const client = new Client(base);
  t.after(() => client.close());

  const answer = client.request({ path: "/x", method: "GET" });
  await inFlight;
  const done = drain.shutDown(app, 0, 10_000);
  await waitFor(() => drain.closing, { message: "the drain to reach closing" });
  release();
  const res = await answer;
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers.connection, "close");
  assert.equal(res.headers["keep-alive"], undefined, "no keep-alive hint on a closing connection");
  assert.equal(await res.body.text(), "late");
  await done;
});

test("hurry() before the shutdown skips the delay altogether", async (t) => {
  const drain = new Drain();
  const { app } = await server(drain);
  t.after(() => app.close());
  drain.hurry();
  await drain.shutDown(app, 60_000, 1000);
  assert.equal(drain.closing, true);
});
