// A response that says nothing about caching says `no-store` (docs/caching.md): without it a
// 200 or a 404 is heuristically cacheable (RFC 9111, 4.2.2), and a cache in front could keep a
// tail, a closed flag or a missing stream's answer. Settled pages, the console's assets and
// event streams say what they allow themselves.
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";

export const noStoreDefaultPlugin = fp(async (app: FastifyInstance) => {
  app.addHook("onSend", (_req, reply, payload, done) => {
    if (!reply.hasHeader("cache-control")) reply.header("cache-control", "no-store");
    done(null, payload);
  });
});
