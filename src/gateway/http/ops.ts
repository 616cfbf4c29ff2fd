// Liveness and readiness for the load balancer: /livez answers while the process runs; /readyz
// answers 200 only while a star answers and the gateway is not draining.
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import type { Upstream } from "../upstream/index.ts";
import type { Drain } from "./drain.ts";
import { routeSchemas } from "./schemas/plain.gen.ts";

export interface OpsOptions {
  upstream: Upstream;
  drain: Drain;
}

export const opsPlugin = fp(async (app: FastifyInstance, opts: OpsOptions) => {
  const config = { alwaysAnswers: true };
  app.get("/livez", { config, schema: routeSchemas.livez }, async () => ({ status: "ok" }));
  app.get("/readyz", { config, schema: routeSchemas.readyz }, async (_req, reply) => {
    if (opts.drain.draining) return reply.code(503).send({ status: "draining" });
    const ready = await opts.upstream.ready().catch(() => false);
    return reply.code(ready ? 200 : 503).send({ status: ready ? "ready" : "no star answers" });
  });
});
