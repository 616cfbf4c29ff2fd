// The gateway as a Fastify app: every concern a plugin, registered here in one place.
import type { Server } from "node:http";
import cors from "@fastify/cors";
import Fastify, { type FastifyInstance } from "fastify";
import type { Logger } from "pino";
import { consolePlugin } from "./console/index.ts";
import { DS_REQUEST_HEADERS, DS_RESPONSE_HEADERS, dsPlugin } from "./ds/index.ts";
import { createReadService, type ReadService } from "./history/index.ts";
import {
  AnswerBudget,
  type AnswerLimits,
  APPEND_MEMORY_FACTOR,
  AppendAdmission,
  type BodyTimeouts,
  bodyGuardPlugin,
  ClientSessions,
  type CompressionSettings,
  clientError,
  compressionPlugin,
  crossOriginPlugin,
  Drain,
  drainPlugin,
  errorsPlugin,
  frameworkErrorsFor,
  type GatewayMetrics,
  gatewayServer,
  type HostCheckSettings,
  hostCheckPlugin,
  jsonPlugin,
  LiveSessions,
  lazyValidators,
  limitConnections,
  metricsPlugin,
  noStoreDefaultPlugin,
  noteExchanges,
  openapiPlugin,
  opsPlugin,
  pipelineOrderPlugin,
  queryEncodingPlugin,
  RESPONSE_BUFFERS_IDLE_BYTES,
  readForwardedHeader,
  requestLogging,
  responseBuffers,
  responseCheckPlugin,
  trustedProxies,
  unsentAnswersPlugin,
} from "./http/index.ts";
import { bucketRoutes, recordRoutes, streamRoutes, tokenRoutes } from "./routes/index.ts";
import { s2FaceErrors, s2Plugin } from "./s2/index.ts";
import {
  createHubs,
  DEFAULT_HUB_SETTINGS,
  type HubSettings,
  ReadGrants,
  type SseTiming,
  sseTiming,
} from "./sessions/index.ts";
import {
  DEFAULT_BODY_TIMEOUTS,
  DEFAULT_CACHE_MAX_AGE_S,
  DEFAULT_COMPRESS_MIN_BYTES,
  DEFAULT_DRAIN_GRACE_MS,
  DEFAULT_DS_SETTINGS,
  DEFAULT_FAILOVER_MS,
  DEFAULT_H2_MAX_STREAMS,
  DEFAULT_HEADERS_TIMEOUT_MS,
  DEFAULT_KEEP_ALIVE_HINT_S,
  DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_MAX_SESSIONS_PER_CLIENT,
  DEFAULT_MAX_WAIT_S,
  DEFAULT_NDJSON_SESSION_BYTES,
  DEFAULT_SEND_TIMEOUT_MS,
  DEFAULT_SESSION_IDLE_MS,
  DEFAULT_SLOW_CONSUMER_MS,
  DEFAULT_SSE_MAX_STREAMS,
  DEFAULT_UNSENT_ANSWERS,
  type ForwardedHeader,
} from "./settings.ts";
import {
  DEFAULT_APPEND_LIMITS,
  PRODUCER_DUPLICATE_HEADER,
  PRODUCER_HEADERS,
} from "./translate/index.ts";
import type { Upstream } from "./upstream/index.ts";

export interface AppOptions {
  upstream: Upstream;
  metrics: GatewayMetrics;
  logger: Logger;
  /** Largest JSON body; the default fits a full 100 MiB batch in base64. */
  bodyLimit: number;
  /**
   * Memory append bodies in flight may hold before a body gets 429: each counts
   * APPEND_MEMORY_FACTOR times its bytes, as they arrive.
   */
  inflightAppendBytes: number;
  /** The same, for one client (credential, else address). */
  inflightAppendClientBytes?: number;
  /** How long a request body may stall, and take in all, before it is cut with 408. */
  bodyTimeouts?: BodyTimeouts;
  /** How long an NDJSON append session may send no line with nothing in flight. */
  sessionIdleMs?: number;
  corsOrigins: string[];
  /** Answer only requests whose Host is loopback or one of these names (host-check.ts). */
  hostCheck?: HostCheckSettings;
  /** The shutdown state: /readyz, and `connection: close` once closing; default: serving. */
  drain?: Drain;
  /** Fail any JSON response that does not match its route's documented schema (tests). */
  checkResponses?: boolean;
  /** An SSE client whose socket does not drain for this long gets slow_consumer. */
  slowConsumerMs?: number;
  /** The most streams one multiplexed subscription (GET /v1/subscribe) may follow. */
  sseMaxStreams?: number;
  /** How long caches may keep a settled page read, seconds; 0: every page is no-store. */
  cacheMaxAgeS?: number;
  /** Peers whose X-Forwarded-For names the client (http/trusted-proxies.ts); none: no peer. */
  trustProxy?: readonly string[];
  /** Which header those peers write the client's address in; default x-forwarded-for. */
  forwardedHeader?: ForwardedHeader;
  /** Connections from those peers open with a PROXY header (http/proxy-accept.ts). */
  proxyProtocol?: boolean;
  /** Sessions (SSE, long-polls, NDJSON) one client may have open (http/client-sessions.ts). */
  maxSessionsPerClient?: number;
  /** Bytes one NDJSON append session may send in all (a line is at most bodyLimit). */
  ndjsonSessionBytes?: number;
  /** How long a subscription re-subscribes without getting a frame before it fails. */
  failoverMs?: number;
  /** On close, how long sessions get to end cleanly before their sockets are destroyed. */
  drainGraceMs?: number;
  /** The Durable Streams face (docs/durable-streams.md); default DEFAULT_DS_SETTINGS. */
  ds?: DsSettings;
  /** The longest a long-poll (`wait`) waits; default DEFAULT_MAX_WAIT_S. */
  maxWaitS?: number;
  /** The longest an SSE subscriber waits without a byte (an idle ping then). */
  ssePingMs?: number;
  /** Client connections at once; the one past it gets 503 and is closed. */
  maxConnections?: number;
  /** How long a client may take to send a request's headers (slow-header attacks). */
  headersTimeoutMs?: number;
  /**
   * How long a unary answer, or an ended SSE response's last events, may take to reach a client
   * that does not read it; then it is cut.
   */
  sendTimeoutMs?: number;
  /** Bytes of answers to reads not yet taken, in all and of one client; past them a read is 429. */
  unsentAnswers?: AnswerLimits;
  /** The idle time HTTP/1.1 responses advertise in `Keep-Alive: timeout=`, seconds. */
  keepAliveHintS?: number;
  /** Idle client connections are closed after this long (--keep-alive-timeout-ms). */
  keepAliveTimeoutMs?: number;
  /** PEM certificate chain and key: TLS with ALPN h2 and http/1.1; absent: HTTP/1.1 and h2c. */
  tls?: { cert: Buffer; key: Buffer };
  /** Concurrent streams of one HTTP/2 connection. */
  h2MaxStreams?: number;
  /** Overrides the SSE timing whole (tests). */
  sseTiming?: SseTiming;
  /**
   * Reads (unary and SSE catch-up), with the object-storage path when it was made with
   * settings (the caller closes it); absent: every read goes through the stars.
   */
  reads?: ReadService;
  /**
   * Readers of a stream share one upstream Subscribe through a hub (default settings when
   * absent); false: every reader has its own.
   */
  hubs?: HubSettings | false;
  /** The browser console at `/` (default on). */
  console?: boolean;
  /** JSON responses compressed by Accept-Encoding (default settings when absent); false: none. */
  compression?: CompressionSettings | false;
}

export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  const headersTimeoutMs = opts.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
  const trust = trustedProxies(opts.trustProxy ?? []);
  const proxyProtocol = opts.proxyProtocol ? trust : undefined;
  const forwarded = opts.forwardedHeader === "forwarded";
  if (forwarded && trust === false) {
    throw new Error(
      "--forwarded-header=forwarded needs --trust-proxy naming the balancers that write it",
    );
  }
  if (proxyProtocol === false) {
    throw new Error("--proxy-protocol needs --trust-proxy naming the balancers that send it");
  }
  const app = Fastify({
    ...requestLogging(opts.logger),
    bodyLimit: opts.bodyLimit,
    trustProxy: trust,
    // A stream key of 512 bytes, percent-encoded, is up to 1536 characters.
    routerOptions: { maxParamLength: 2048 },
    // While closing, keep routing: a reconnecting EventSource then gets a drained session (200
    // with a final `retry:`) and tries again later, where Fastify's default 503 would make the
    // browser give up on the stream for good.
    return503OnClosing: false,
    frameworkErrors: frameworkErrorsFor([s2FaceErrors]),
    clientErrorHandler: clientError(headersTimeoutMs),
    serverFactory: (handler) =>
      gatewayServer(noteExchanges(forwarded ? readForwardedHeader(handler) : handler), {
        ...(opts.tls ? { tls: opts.tls } : {}),
        headersTimeoutMs,
        keepAliveTimeoutMs: opts.keepAliveTimeoutMs ?? DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
        keepAliveHintS: opts.keepAliveHintS ?? DEFAULT_KEEP_ALIVE_HINT_S,
        h2MaxStreams: opts.h2MaxStreams ?? DEFAULT_H2_MAX_STREAMS,
        ...(proxyProtocol ? { proxyProtocol } : {}),
      }) as unknown as Server,
    // Validation only refuses: Fastify's defaults would coerce "12" to 12 (and big digits to a
    // rounded double), fill in defaults and strip unknown fields, so what a handler saw would
    // differ from what the client sent. Query values and path segments stay strings.
    ajv: {
      customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false },
    },
    schemaController: { compilersFactory: { buildValidator: lazyValidators } },
  });
  limitConnections(app.server, opts.maxConnections ?? DEFAULT_MAX_CONNECTIONS, !!opts.tls);
  await app.register(errorsPlugin, { faces: [s2FaceErrors] });
  await app.register(noStoreDefaultPlugin);
  await app.register(queryEncodingPlugin);
  await app.register(pipelineOrderPlugin);
  if (opts.hostCheck) await app.register(hostCheckPlugin, opts.hostCheck);
  await app.register(crossOriginPlugin, { allowed: opts.corsOrigins });
  await app.register(jsonPlugin);
  // Before the routes: the plugin adds its hook to each route as it is declared.
  if (opts.compression !== false) {
    await app.register(
      compressionPlugin,
      opts.compression ?? { minBytes: DEFAULT_COMPRESS_MIN_BYTES },
    );
  }
  const admission = new AppendAdmission({
    maxBytes: Math.floor(opts.inflightAppendBytes / APPEND_MEMORY_FACTOR),
    clientMaxBytes: Math.floor(
      (opts.inflightAppendClientBytes ?? opts.inflightAppendBytes / 2) / APPEND_MEMORY_FACTOR,
    ),
  });
  opts.metrics.memory.add(
    "append_bodies",
    () => admission.inflight * APPEND_MEMORY_FACTOR,
    () => opts.inflightAppendBytes,
  );
  const bodyTimeouts = opts.bodyTimeouts ?? DEFAULT_BODY_TIMEOUTS;
  await app.register(bodyGuardPlugin, { admission, timeouts: bodyTimeouts });
  const answers = new AnswerBudget(opts.unsentAnswers ?? DEFAULT_UNSENT_ANSWERS);
  opts.metrics.memory.add(
    "unsent_answers",
    () => answers.held,
    () => answers.boundBytes,
  );
  await app.register(unsentAnswersPlugin, {
    timeoutMs: opts.sendTimeoutMs ?? DEFAULT_SEND_TIMEOUT_MS,
    budget: answers,
  });
  if (opts.checkResponses) await app.register(responseCheckPlugin);
  await app.register(openapiPlugin);
  if (opts.console !== false) await app.register(consolePlugin);
  await app.register(metricsPlugin, { metrics: opts.metrics });
  await app.register(cors, {
    origin: opts.corsOrigins.length === 0 ? false : opts.corsOrigins,
    exposedHeaders: [
      "retry-after",
      "server-timing",
      "content-type",
      "s2-provision-result",
      PRODUCER_DUPLICATE_HEADER,
      ...DS_RESPONSE_HEADERS,
    ],
    allowedHeaders: [
      "authorization",
      "content-type",
      "nova-format",
      "nova-request-token",
      "last-event-id",
      "s2-basin",
      "s2-format",
      "s2-request-token",
      ...PRODUCER_HEADERS,
      ...DS_REQUEST_HEADERS,
    ],
    methods: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"],
    maxAge: 600,
  });
  const drain = opts.drain ?? new Drain();
  await app.register(drainPlugin, { drain });
  await app.register(opsPlugin, { upstream: opts.upstream, drain });
  await app.register(bucketRoutes, { upstream: opts.upstream });
  await app.register(streamRoutes, { upstream: opts.upstream });
  // Closing drains the long-lived sessions first (preClose runs before the server closes).
  const sessions = new LiveSessions();
  app.addHook("preClose", () => sessions.drainAll(opts.drainGraceMs ?? DEFAULT_DRAIN_GRACE_MS));
  const hubSettings = opts.hubs === false ? undefined : (opts.hubs ?? DEFAULT_HUB_SETTINGS);
  const failoverMs = opts.failoverMs ?? DEFAULT_FAILOVER_MS;
  // One hub per stream, shared by the readers of both faces (nova's and S2's).
  const hubs =
    hubSettings &&
    createHubs({ upstream: opts.upstream, metrics: opts.metrics, failoverMs }, hubSettings);
  opts.metrics.memory.add(
    "response_buffers_idle",
    () => responseBuffers.idleBytes,
    () => RESPONSE_BUFFERS_IDLE_BYTES,
  );
  if (hubs) {
    app.addHook("onClose", () => hubs.closeAll());
    opts.metrics.memory.add(
      "hub_rings",
      () => hubs.heldBytes,
      () => hubs.boundBytes,
    );
  }
  const grants = hubSettings && new ReadGrants(hubSettings.readGrantMs);
  const reads =
    opts.reads ?? createReadService({ upstream: opts.upstream, metrics: opts.metrics.readplan });
  // What the readers of both faces (nova's and S2's) subscribe through.
  const subscribe = {
    upstream: opts.upstream,
    metrics: opts.metrics,
    sessions,
    clientSessions: new ClientSessions(
      opts.maxSessionsPerClient ?? DEFAULT_MAX_SESSIONS_PER_CLIENT,
    ),
    hubs,
    grants,
    slowConsumerMs: opts.slowConsumerMs ?? DEFAULT_SLOW_CONSUMER_MS,
    failoverMs,
    maxWaitS: opts.maxWaitS ?? DEFAULT_MAX_WAIT_S,
    sseTiming: opts.sseTiming ?? sseTiming(opts.ssePingMs, opts.sendTimeoutMs),
    history: reads.history,
  };
  await app.register(recordRoutes, {
    upstream: opts.upstream,
    admission,
    appendLimits: DEFAULT_APPEND_LIMITS,
    bodyLimit: opts.bodyLimit,
    reads,
    metrics: opts.metrics,
    sessions,
    ndjsonLimits: {
      maxLineBytes: opts.bodyLimit,
      maxSessionBytes: opts.ndjsonSessionBytes ?? DEFAULT_NDJSON_SESSION_BYTES,
    },
    bodyTimeouts,
    sessionIdleMs: opts.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS,
    subscribe,
    sseMaxStreams: opts.sseMaxStreams ?? DEFAULT_SSE_MAX_STREAMS,
    cacheMaxAgeS: opts.cacheMaxAgeS ?? DEFAULT_CACHE_MAX_AGE_S,
  });
  await app.register(tokenRoutes, { upstream: opts.upstream });
  // S2's REST API beside nova's (docs/s2-compat.md), on the same upstream, hubs and reads.
  await app.register(s2Plugin, {
    upstream: opts.upstream,
    admission,
    reads,
    bodyLimit: opts.bodyLimit,
    subscribe,
    sessionIdleMs: opts.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS,
  });
  // The Durable Streams protocol (docs/durable-streams.md), on the same upstream, hubs and reads.
  const ds = opts.ds ?? DEFAULT_DS_SETTINGS;
  await app.register(dsPlugin, {
    prefix: "/ds",
    upstream: opts.upstream,
    reads,
    subscribe,
    bucket: ds.bucket,
    bodyLimit: opts.bodyLimit,
    longPollMs: ds.longPollMs,
    sseCloseMs: ds.sseCloseS * 1000,
    cacheMaxAgeS: opts.cacheMaxAgeS ?? DEFAULT_CACHE_MAX_AGE_S,
  });
  return app;
}

export interface DsSettings {
  /** The nova bucket that holds the face's streams (made on first use). */
  bucket: string;
  /** How long a long-poll waits for data before its 204, ms (at most --max-wait-s). */
  longPollMs: number;
  /** How long an SSE response lasts before the client is made to reconnect, seconds. */
  sseCloseS: number;
}
