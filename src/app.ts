// The gateway as a Fastify app: every concern a plugin, registered here in one place.
import cors from "@fastify/cors";
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import type { Logger } from "pino";
import { AppendAdmission } from "./gateway/admission.ts";
import type { Upstream } from "./gateway/upstream.ts";
import { errorsPlugin } from "./plugins/errors.ts";
import { jsonPlugin } from "./plugins/json.ts";
import { type GatewayMetrics, metricsPlugin } from "./plugins/metrics.ts";
import { opsPlugin } from "./plugins/ops.ts";
import { bucketRoutes } from "./routes/buckets.ts";
import { recordRoutes } from "./routes/records.ts";
import { streamRoutes } from "./routes/streams.ts";
import { tokenRoutes } from "./routes/tokens.ts";
import { DEFAULT_APPEND_LIMITS } from "./translate/record-json.ts";

export interface AppOptions {
  upstream: Upstream;
  metrics: GatewayMetrics;
  logger: Logger;
  /** Largest JSON body; the default fits a full 100 MiB batch in base64. */
  bodyLimit: number;
  /** Bytes of append bodies in flight at once before new ones get 429. */
  inflightAppendBytes: number;
  corsOrigins: string[];
  draining?: () => boolean;
}

/** 100 MiB of content in base64 (4/3) plus JSON framing. */
export const DEFAULT_BODY_LIMIT = 150 * 1024 * 1024;

export const REDACTED_PATHS = ["req.headers.authorization", 'req.query["access_token"]'];

export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: opts.logger as FastifyBaseLogger,
    bodyLimit: opts.bodyLimit,
    // A stream key of 512 bytes, percent-encoded, is up to 1536 characters.
    routerOptions: { maxParamLength: 2048 },
  });
  await app.register(errorsPlugin);
  await app.register(jsonPlugin);
  await app.register(metricsPlugin, { metrics: opts.metrics });
  await app.register(cors, {
    origin: opts.corsOrigins.length === 0 ? false : opts.corsOrigins,
    exposedHeaders: ["retry-after", "server-timing", "content-type"],
    allowedHeaders: [
      "authorization",
      "content-type",
      "nova-format",
      "nova-request-token",
      "last-event-id",
    ],
    methods: ["GET", "POST", "PATCH", "DELETE"],
    maxAge: 600,
  });
  await app.register(opsPlugin, {
    upstream: opts.upstream,
    draining: opts.draining ?? (() => false),
  });
  await app.register(bucketRoutes, { upstream: opts.upstream });
  await app.register(streamRoutes, { upstream: opts.upstream });
  await app.register(recordRoutes, {
    upstream: opts.upstream,
    admission: new AppendAdmission(opts.inflightAppendBytes),
    appendLimits: DEFAULT_APPEND_LIMITS,
    bodyLimit: opts.bodyLimit,
  });
  await app.register(tokenRoutes, { upstream: opts.upstream });
  return app;
}
