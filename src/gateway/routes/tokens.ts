// POST /v1/tokens: ExchangeToken, an api key for a short-lived bearer token.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { routeSchemas } from "../http/index.ts";
import { tokenRequestFromJson, tokenResponseToJson } from "../translate/index.ts";
import type { Upstream } from "../upstream/index.ts";
import { requestContext } from "./context.ts";

export async function tokenRoutes(app: FastifyInstance, opts: { upstream: Upstream }) {
  app.post("/v1/tokens", { schema: routeSchemas.exchangeToken }, exchangeToken);

  async function exchangeToken(req: FastifyRequest, reply: FastifyReply) {
    const ctx = requestContext(req, reply);
    const res = await opts.upstream.unary(
      "ExchangeToken",
      tokenRequestFromJson(req.body),
      ctx.call,
    );
    // A bearer token must not be kept by caches (RFC 6749 §5.1).
    reply.header("cache-control", "no-store");
    return tokenResponseToJson(res, ctx.int64);
  }
}
