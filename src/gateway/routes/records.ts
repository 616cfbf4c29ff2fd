// /v1/buckets/{bucket}/streams/{key}/records and its verbs: Append, Read, CheckTail, Trim, Fence,
// Close;
// and /v1/subscribe, several streams on one SSE response, on the same hubs as one stream's.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { RequestOf } from "../../contract/proto/index.ts";
import { invalidArgument } from "../errors/index.ts";
import type { ReadService } from "../history/index.ts";
import { serverTiming } from "../history/index.ts";
import type { AppendAdmission, BodyTimeouts, GatewayMetrics, LiveSessions } from "../http/index.ts";
import {
  addVary,
  answerCached,
  checkUtf8Charset,
  clientKey,
  giveResponseBuffer,
  PAGE_VARY,
  pageIsSettled,
  routeSchemas,
  sendJsonBytes,
  takeBody,
  takeResponseBuffer,
} from "../http/index.ts";
import type { SubscribeDeps } from "../sessions/index.ts";
import {
  SSE_HEADERS,
  serveAppendSession,
  serveLongPoll,
  serveMultiplexedSse,
  serveSse,
  wantsEventStream,
} from "../sessions/index.ts";
import type { NdjsonLimits, Query } from "../translate/index.ts";
import {
  type AppendLimits,
  appendAckToJson,
  appendInputFromJson,
  fenceBodyFromJson,
  isNdjson,
  NDJSON_TYPE,
  PRODUCER_DUPLICATE_HEADER,
  parseReadQuery,
  parseStreamSpecs,
  parseWait,
  producerFromHeaders,
  readBatchJsonBytes,
  resumeEventId,
  resumeMultiplexId,
  tailToJson,
  trimBodyFromJson,
} from "../translate/index.ts";
import type { CallOptions, Upstream } from "../upstream/index.ts";
import { recordFormat, requestContext, streamAddress } from "./context.ts";

export interface RecordRoutesOptions {
  upstream: Upstream;
  /** NDJSON sessions admit each line; JSON bodies are admitted as they arrive (http/body-guard). */
  admission: AppendAdmission;
  appendLimits: AppendLimits;
  bodyLimit: number;
  metrics: GatewayMetrics;
  /** NDJSON sessions in flight, drained on shutdown. */
  sessions: LiveSessions;
  ndjsonLimits: NdjsonLimits;
  /** After an NDJSON session that stopped early, how long the rest of its body may take. */
  bodyTimeouts: BodyTimeouts;
  /** How long an NDJSON session may send no line with nothing in flight. */
  sessionIdleMs: number;
  /** Unary reads: settled history from object storage, the rest from stars. */
  reads: ReadService;
  /** SSE subscriptions and long-polls: their sources, hubs, timings and limits. */
  subscribe: SubscribeDeps;
  /** The most streams one multiplexed subscription may follow. */
  sseMaxStreams: number;
  /** How long caches may keep a settled page, seconds (http/page-caching.ts). */
  cacheMaxAgeS: number;
}

export async function recordRoutes(app: FastifyInstance, opts: RecordRoutesOptions) {
  const { upstream, admission, metrics, sessions } = opts;
  const config = { resource: "stream" as const };
  const base = "/v1/buckets/:bucket/streams/:key";
  const subscribeDeps = opts.subscribe;
  const sessionDeps = {
    upstream,
    metrics,
    sessions,
    clientSessions: opts.subscribe.clientSessions,
    admission,
    appendLimits: opts.appendLimits,
    lineLimits: opts.ndjsonLimits,
    bodyTimeouts: opts.bodyTimeouts,
    idleMs: opts.sessionIdleMs,
    slowConsumerMs: opts.subscribe.slowConsumerMs,
  };
  // An NDJSON body is left unread: the session reads the request line by line.
  app.addContentTypeParser(NDJSON_TYPE, (req, _payload, done) => {
    try {
      checkUtf8Charset(req.headers["content-type"]);
      done(null, undefined);
    } catch (err) {
      done(err as Error, undefined);
    }
  });

  app.post(
    `${base}/records`,
    {
      config: {
        ...config,
        admitsAppend: true,
        sessionBody: (req) => isNdjson(req.headers["content-type"]),
      },
      schema: routeSchemas.append,
      bodyLimit: opts.bodyLimit,
    },
    appendRecords,
  );
  app.get(`${base}/records`, { config, schema: routeSchemas.read }, readRecords);
  app.get("/v1/subscribe", { config, schema: routeSchemas.subscribe }, subscribeStreams);
  app.get(`${base}/records/tail`, { config, schema: routeSchemas.checkTail }, checkTail);
  app.post(`${base}/trim`, { config, schema: routeSchemas.trim }, trimStream);
  app.post(`${base}/fence`, { config, schema: routeSchemas.fence }, fenceStream);
  app.post(
    `${base}/close`,
    {
      config: { ...config, admitsAppend: true },
      schema: routeSchemas.close,
      bodyLimit: opts.bodyLimit,
      // An empty JSON body (clients that always say application/json) is a close without one.
      preValidation: async (req) => {
        if (req.body === undefined && req.headers["content-type"] !== undefined) req.body = {};
      },
    },
    closeStream,
  );

  async function appendRecords(req: FastifyRequest, reply: FastifyReply) {
    const ctx = requestContext(req, reply);
    const address = streamAddress(req);
    const producer = producerFromHeaders(req.headers, req.raw.rawHeaders);
    if (isNdjson(req.headers["content-type"])) {
      const format = recordFormat(req);
      const parts = { ...address, call: ctx.call, format, int64: ctx.int64, producer };
      return serveAppendSession(parts, req.raw, reply, sessionDeps);
    }
    const batch = appendInputFromJson(takeBody(req), recordFormat(req), opts.appendLimits);
    return appendUnary(reply, { ...address, ...batch, producer }, ctx);
  }

  /** One Append call: its ack, marked as a producer's retry when it was one. */
  async function appendUnary(
    reply: FastifyReply,
    request: RequestOf<"Append">,
    ctx: ReturnType<typeof requestContext>,
  ) {
    const route = { ...ctx.call, bucket: request.bucket, key: request.key };
    const ack = await upstream.unary("Append", request, route);
    if (ack.duplicate) reply.header(PRODUCER_DUPLICATE_HEADER, "true");
    return appendAckToJson(ack, ctx.int64);
  }

  /** Closes the stream, after the body's records when it has any (one batch, as an append). */
  async function closeStream(req: FastifyRequest, reply: FastifyReply) {
    const ctx = requestContext(req, reply);
    const address = streamAddress(req);
    const producer = producerFromHeaders(req.headers, req.raw.rawHeaders);
    const body = takeBody(req);
    const batch =
      body !== undefined && body !== null
        ? appendInputFromJson(body, recordFormat(req), opts.appendLimits)
        : { records: [] };
    if (batch.records.length === 0 && batch.match_seq_num !== undefined) {
      throw invalidArgument(
        "match_seq_num",
        "needs records: a close without records has none to match",
      );
    }
    return appendUnary(reply, { ...address, ...batch, producer, close: true }, ctx);
  }

  async function readRecords(req: FastifyRequest, reply: FastifyReply) {
    const ctx = requestContext(req, reply, true);
    const address = streamAddress(req);
    const query = parseReadQuery(req.query as Query);
    const format = recordFormat(req);
    const parts = { ...address, call: ctx.call, query, format, int64: ctx.int64 };
    // HEAD answers as the GET would, without a body, and never opens a session.
    const head = req.method === "HEAD";
    if (wantsEventStream(req.headers.accept)) {
      const resume = resumeEventId(req.headers["last-event-id"], req.query as Query);
      if (!head) return serveSse(parts, resume, reply, subscribeDeps);
      return sseHead(reply, ctx.call, [address]);
    }
    if (query.wait > 0 && !head) {
      reply.header("cache-control", "no-store");
      // What the answer depends on, as every page read says it.
      addVary(reply, PAGE_VARY);
      const got = await serveLongPoll(parts, subscribeDeps, clientKey(req));
      reply.expectPage(got.records);
      return sendJsonBytes(reply, readBatchJsonBytes(got, format, ctx.int64, takeResponseBuffer));
    }
    const page = await opts.reads.page(address, query, ctx.call);
    reply.expectPage(page.response.records);
    reply.header("server-timing", serverTiming(page.timings));
    const json = readBatchJsonBytes(page.response, format, ctx.int64, takeResponseBuffer);
    const caching = {
      settled: pageIsSettled({ start: query.start, ...page.response }),
      credential: ctx.call.authorization !== undefined,
      maxAgeS: opts.cacheMaxAgeS,
    };
    if (answerCached(req, reply, json, caching)) {
      giveResponseBuffer(json);
      return reply;
    }
    return sendJsonBytes(reply, json);
  }

  /**
   * An SSE read's HEAD: the head its GET would have, once each stream's tail is read (the stream
   * exists, and the caller may read it).
   */
  async function sseHead(
    reply: FastifyReply,
    call: CallOptions,
    streams: readonly { bucket: string; key: string }[],
  ) {
    await Promise.all(
      streams.map(({ bucket, key }) =>
        upstream.unary("CheckTail", { bucket, key }, { ...call, bucket, key }),
      ),
    );
    return reply.code(200).headers(SSE_HEADERS).send();
  }

  async function subscribeStreams(req: FastifyRequest, reply: FastifyReply) {
    const ctx = requestContext(req, reply, true);
    const query = req.query as Query;
    const streams = parseStreamSpecs(query, opts.sseMaxStreams);
    const resume = resumeMultiplexId(req.headers["last-event-id"], query, streams.length);
    // HEAD answers as the GET would, without a body, and never opens a session.
    if (req.method === "HEAD") return sseHead(reply, ctx.call, streams);
    const parts = {
      streams,
      call: ctx.call,
      format: recordFormat(req),
      int64: ctx.int64,
      wait: parseWait(query),
    };
    return serveMultiplexedSse(parts, resume, reply, subscribeDeps);
  }

  async function checkTail(req: FastifyRequest, reply: FastifyReply) {
    const ctx = requestContext(req, reply, true);
    const address = streamAddress(req);
    return tailToJson(
      await upstream.unary("CheckTail", address, { ...ctx.call, ...address }),
      ctx.int64,
    );
  }

  async function trimStream(req: FastifyRequest, reply: FastifyReply) {
    const ctx = requestContext(req, reply);
    const address = streamAddress(req);
    await upstream.unary(
      "Trim",
      { ...address, ...trimBodyFromJson(req.body) },
      { ...ctx.call, ...address },
    );
    return reply.code(204).send();
  }

  async function fenceStream(req: FastifyRequest, reply: FastifyReply) {
    const ctx = requestContext(req, reply);
    const address = streamAddress(req);
    const res = await upstream.unary(
      "Fence",
      { ...address, ...fenceBodyFromJson(req.body) },
      { ...ctx.call, ...address },
    );
    return tailToJson(res, ctx.int64);
  }
}
