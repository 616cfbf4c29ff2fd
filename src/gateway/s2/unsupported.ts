// S2's account APIs that nova has no counterpart for answer 501 with the reason: access tokens
// (nova's are exchanged from api keys at POST /v1/tokens), locations, and usage metrics (nova's
// gateway and stars export Prometheus metrics at /metrics).
import type { FastifyInstance } from "fastify";
import { s2Error } from "./errors.ts";
import { s2Schemas } from "./schemas.gen.ts";

const REASONS = {
  "/v1/access-tokens":
    "nova has no S2 access tokens: exchange an api key for a bearer token at POST /v1/tokens (nova's API) and give it to the SDK as accessToken",
  "/v1/locations": "nova has no S2 locations: a bucket's location is part of its config",
  "/v1/metrics":
    "nova has no S2 usage metrics: the gateway and the stars export Prometheus metrics at /metrics",
} as const;

export async function unsupportedRoutes(app: FastifyInstance) {
  for (const [prefix, reason] of Object.entries(REASONS)) {
    const notImplemented = async () => {
      throw s2Error("not_implemented", reason);
    };
    for (const url of [prefix, `${prefix}/*`]) {
      app.route({
        method: ["GET", "POST", "PUT", "PATCH", "DELETE"],
        url,
        schema: s2Schemas.unsupported,
        handler: notImplemented,
      });
    }
  }
}
