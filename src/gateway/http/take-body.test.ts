import assert from "node:assert/strict";
import { test } from "node:test";
import Fastify from "fastify";
import { takeBody } from "./take-body.ts";

test("takeBody gives the parsed body once and leaves the request without it", async (t) => {
  const app = Fastify();
  t.after(() => app.close());
  app.post("/", async (req) => {
    const taken = takeBody(req);
    return { taken, left: req.body ?? null };
  });
  const res = await app.inject({ method: "POST", url: "/", payload: { records: [{ body: "a" }] } });
  assert.equal(res.statusCode, 200);
  assert.deepEqual(res.json(), { taken: { records: [{ body: "a" }] }, left: null });
});
