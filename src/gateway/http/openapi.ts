// The shared schemas for validation by $ref, and the OpenAPI 3.1 document generated from every
// route's schema: served at /openapi.json and browsable at /docs. Register before the routes:
// @fastify/swagger collects them as they are added.
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { PAGE_HEADERS } from "./page-headers.ts";
import { routeSchemas, sharedSchemas } from "./schemas/plain.gen.ts";

const DESCRIPTION = [
  "HTTP/JSON gateway to a fleet of nova stars (`nova.v1.DataPlaneService`).",
  "",
  "- Stream keys are path segments: percent-encode them (`a/b` is `a%2Fb`).",
  "- Record bytes travel as `raw` UTF-8 text (the default) or `base64`, chosen by `?format=` or the `nova-format` header (the query wins), for header names, values and bodies alike.",
  "- seq_num (uint64) and timestamps (int64) are exact JSON integers, never rounded: values beyond 2^53-1 keep every digit, which JavaScript's JSON.parse cannot hold. Add `?int64=string` for decimal strings. On input both are accepted.",
  "- Every error is an ErrorBody `{code, message, retryable, ...}` with the status given per route; `field` names the input at fault.",
  "- `Authorization: Bearer <token>` is forwarded to the stars; reads also take `?access_token=`.",
].join("\n");

export const openapiPlugin = fp(async (app: FastifyInstance) => {
  for (const schema of sharedSchemas) app.addSchema(schema);
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: { title: "nova gateway", version: "1", description: DESCRIPTION },
      tags: [
        { name: "buckets", description: "Buckets and their stream defaults." },
        { name: "streams", description: "Streams and their configuration." },
        { name: "records", description: "Append, read, subscribe, tail, trim and fence." },
        { name: "tokens", description: "Api keys for bearer tokens." },
        { name: "service", description: "Health, metrics and this document." },
        {
          name: "s2",
          description:
            "S2's REST API over nova's buckets and streams, for S2's SDKs and curl recipes: S2's paths, JSON and protobuf bodies, SSE sessions and `{code, message}` errors (docs/s2-compat.md lists every difference).",
        },
      ],
      components: {
        securitySchemes: {
          bearer: {
            type: "http",
            scheme: "bearer",
            description: "A token from POST /v1/tokens, forwarded to the star.",
          },
          accessToken: {
            type: "apiKey",
            in: "query",
            name: "access_token",
            description: "The same token as a query parameter, on reads only (for EventSource).",
          },
        },
      },
    },
    // Clone: generating the document must not edit the schemas Fastify validates with.
    // Shared schemas keep their $id as their component name.
    refResolver: {
      clone: true,
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === "string" ? json.$id : `def-${i}`,
    },
  });
  await app.register(swaggerUi, {
    routePrefix: "/docs",
    // Its try-it-out buttons send requests: the page gets the console's protections. The
    // plugin's own CSP would add upgrade-insecure-requests, which breaks it on plain HTTP.
    staticCSP:
      "default-src 'self'; base-uri 'self'; connect-src 'self'; font-src 'self' data:; frame-ancestors 'none'; img-src 'self' data:; object-src 'none'; script-src 'self'; script-src-attr 'none'; style-src 'self'",
    uiHooks: {
      onRequest: (_req, reply, done) => {
        reply.headers(PAGE_HEADERS);
        done();
      },
    },
  });
  app.get("/openapi.json", { schema: routeSchemas.openapi }, async () => app.swagger());
});
