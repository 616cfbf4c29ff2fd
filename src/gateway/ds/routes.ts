// The Durable Streams routes on /ds/v1/stream/{path}: PUT creates, POST appends (and closes),
// GET reads (catch-up, long-poll, SSE), HEAD says the metadata, DELETE deletes.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import {
  badHeader,
  badPath,
  badQuery,
  HttpError,
  invalidArgument,
  toHttpError,
} from "../errors/index.ts";
import type { ReadService } from "../history/index.ts";
import {
  addVary,
  clientAbortSignal,
  clientKey,
  etagMatches,
  takeOverConnection,
} from "../http/index.ts";
import {
  SSE_HEADERS,
  type SubscribeDeps,
  serveLongPoll,
  subscriptionSource,
  trackSession,
  WaitPassed,
} from "../sessions/index.ts";
import {
  checkStreamKey,
  DOT_SEGMENT,
  isDotSegment,
  type Query,
  queryParam,
} from "../translate/index.ts";
import type { CallOptions, Upstream } from "../upstream/index.ts";
import { cacheHeaders, etagOf } from "./caching.ts";
import { nextCursor } from "./cursor.ts";
import { deleteDs } from "./delete.ts";
import { forkHeaders, planFork } from "./fork.ts";
import { closedHeader, expiryHeaders, producerHeaders, streamSeqHeader } from "./headers.ts";
import { messages } from "./messages.ts";
import { offsetOf, parseOffset } from "./offsets.ts";
import { isJsonMode, renderBody, renderingOf } from "./render.ts";
import { SECURITY_HEADERS } from "./security-headers.ts";
import {
  appendDs,
  createDsStream,
  type DsAddress,
  type DsPage,
  type DsStream,
  describeStream,
  readDsPage,
  refuseRetired,
  streamInfo,
} from "./service.ts";
import { DsSseSession } from "./sse.ts";

export interface DsRoutesOptions {
  upstream: Upstream;
  reads: ReadService;
  subscribe: SubscribeDeps;
  bucket: string;
  bodyLimit: number;
  /** How long a long-poll waits for data before its 204. */
  longPollMs: number;
  /** How long an SSE response lasts before the client is made to reconnect. */
  sseCloseMs: number;
  /** max-age of cacheable reads; 0: none cacheable. */
  cacheMaxAgeS: number;
}

/** The session kind of the SSE read, in /metrics (sessions, slow consumers). */
const DS_SSE = "ds_sse";
const DEFAULT_TYPE = "application/octet-stream";
const PATH = "/v1/stream/*";

export async function dsRoutes(app: FastifyInstance, opts: DsRoutesOptions) {
  const { upstream } = opts;
  // The protocol's own specification documents these routes (docs/durable-streams.md), not the
  // OpenAPI document: their bodies are any content type, their contract is in headers.
  const route = { config: { resource: "stream" as const }, schema: { hide: true } };
  const writes = {
    ...route,
    config: { ...route.config, admitsAppend: true },
    bodyLimit: opts.bodyLimit,
  };
  app.put(PATH, writes, create);
  app.post(PATH, writes, append);
  app.get(PATH, { ...route, exposeHeadRoute: false }, read);
  app.head(PATH, route, head);
  app.delete(PATH, route, remove);

  function address(req: FastifyRequest): DsAddress {
    const path = (req.params as { "*": string })["*"];
    const key = checkStreamKey(path, "path");
    const segments = key.split("/");
    if (segments.some(isDotSegment)) throw badPath("path", `has a segment that ${DOT_SEGMENT}`);
    // `{stream-url}/__ds/...`: a segment of its own anywhere in the path.
    if (segments.includes("__ds")) {
      throw new HttpError(
        404,
        "not_found",
        "path: __ds is reserved for the protocol's subscription APIs, which nova does not serve",
      );
    }
    return { bucket: opts.bucket, key };
  }

  async function create(req: FastifyRequest, reply: FastifyReply) {
    const addr = address(req);
    const c = call(req, reply);
    const fork = forkHeaders(req.headers);
    const asked = { contentType: req.headers["content-type"], expiry: expiryHeaders(req.headers) };
    const plan = fork && (await planFork(upstream, opts.reads, opts.bucket, fork, asked, c));
    const contentType = plan?.contentType ?? asked.contentType ?? DEFAULT_TYPE;
    const body = bodyOf(req);
    const { created, stream } = await createDsStream(
      upstream,
      addr,
      {
        contentType,
        expiry: plan?.expiry ?? asked.expiry,
        closed: closedHeader(req.headers),
        records: body.length === 0 ? [] : messages(body, contentType, "create"),
        forkOrigin: plan?.forkOrigin ?? "",
        ...(plan ? { inherit: () => plan.inherit(addr) } : {}),
      },
      c,
    );
    if (created) reply.header("location", `${req.protocol}://${req.host}${req.url.split("?")[0]}`);
    return reply
      .code(created ? 201 : 200)
      .headers(streamHeaders(stream))
      .header("content-type", stream.contentType)
      .send();
  }

  async function append(req: FastifyRequest, reply: FastifyReply) {
    const addr = address(req);
    const close = closedHeader(req.headers);
    const producer = producerHeaders(req.headers, req.raw.rawHeaders);
    const writerSeq = streamSeqHeader(req.headers, req.raw.rawHeaders);
    const body = bodyOf(req);
    const contentType = req.headers["content-type"];
    if (body.length === 0 && !close) {
      const said = req.headers["stream-closed"];
      const ignored =
        said === undefined ? "" : ` (Stream-Closed: ${JSON.stringify(said)} is not true)`;
      throw invalidArgument(
        "body",
        `is empty${ignored}; send data, or Stream-Closed: true to close`,
      );
    }
    if (body.length > 0 && contentType === undefined) {
      throw badHeader("content-type", "is required with a body: send the stream's content type");
    }
    try {
      const ack = await appendDs(
        upstream,
        addr,
        body.length === 0
          ? { records: [], close, ...(producer ? { producer } : {}) }
          : {
              records: messages(body, contentType as string, "append"),
              contentType: contentType as string,
              close,
              ...(producer ? { producer } : {}),
              ...(writerSeq === undefined ? {} : { writerSeq }),
            },
        call(req, reply),
      );
      reply.header("stream-next-offset", offsetOf(ack.tail?.seq_num ?? "0"));
      if (ack.closed) reply.header("stream-closed", "true");
      if (!producer) return reply.code(204).send();
      reply.headers({
        "producer-epoch": String(producer.epoch),
        "producer-seq": ack.producer_seq ?? String(producer.seq),
      });
      // Closing is idempotent by itself: a close-only request's stamp is echoed, not checked.
      return reply.code(ack.duplicate || body.length === 0 ? 204 : 200).send();
    } catch (err) {
      const http = toHttpError(err, { resource: "stream" });
      // A retired stream is closed: it answers as gone.
      if (http.code === "stream_closed")
        refuseRetired(await streamInfo(upstream, addr, call(req, reply)));
      // Appended long ago: a duplicate all the same, whose position is no longer remembered.
      if (producer && http.code === "producer_seq_stale") {
        const stream = await describeStream(upstream, addr, call(req, reply));
        reply.headers({
          ...streamHeaders(stream),
          "producer-epoch": String(producer.epoch),
          "producer-seq": String(http.fields.last_seq),
        });
        return reply.code(204).send();
      }
      throw http;
    }
  }

  async function head(req: FastifyRequest, reply: FastifyReply) {
    const stream = refuseRetired(await describeStream(upstream, address(req), call(req, reply)));
    return reply
      .headers({ ...streamHeaders(stream), ...expiryOut(stream), "cache-control": "no-store" })
      .header("content-type", stream.contentType)
      .send();
  }

  async function remove(req: FastifyRequest, reply: FastifyReply) {
    await deleteDs(upstream, address(req), call(req, reply));
    return reply.code(204).send();
  }

  async function read(req: FastifyRequest, reply: FastifyReply) {
    const addr = address(req);
    const query = req.query as Query;
    const live = queryParam(query, "live");
    if (live !== undefined && live !== "long-poll" && live !== "sse") {
      throw badQuery(
        "live",
        `${JSON.stringify(live)} is not a mode: send long-poll or sse, or leave it out`,
      );
    }
    const offsetText = queryParam(query, "offset");
    if (live !== undefined && offsetText === undefined) {
      throw badQuery("offset", `is required with live=${live}: send -1 to start at the beginning`);
    }
    const offset = parseOffset(offsetText);
    const c = call(req, reply);
    const stream = refuseRetired(await streamInfo(upstream, addr, c));
    const echoed = queryParam(query, "cursor");
    const json = isJsonMode(stream.contentType);
    if (offset.at === "now") {
      // Where the tail is: a read there, which also keeps a TTL stream alive.
      const atTail = await readDsPage(opts.reads, addr, "tail", c);
      if (live === "sse") return serveSse(req, reply, addr, stream, atTail.tail, false, echoed);
      reply.header("content-type", stream.contentType);
      const asked: Asked = { json, echoed, live: live === "long-poll", start: "now" };
      if (asked.live) return longPoll(req, reply, addr, stream.id, asked, atTail.tail);
      return sendPage(req, reply, stream.id, atTail, asked);
    }
    const start = offset.at === "start";
    if (live === "sse") {
      return serveSse(req, reply, addr, stream, start ? 0n : offset.seq, start, echoed);
    }
    reply.header("content-type", stream.contentType);
    const page = await readDsPage(opts.reads, addr, start ? "start" : offset.seq, c);
    const asked: Asked = { json, echoed, live: live === "long-poll", start: offsetText ?? "-1" };
    if (asked.live && page.records.length === 0) {
      return longPoll(req, reply, addr, stream.id, asked, page.next);
    }
    return sendPage(req, reply, stream.id, page, asked);
  }

  /**
   * A page, with its ETag and cache headers when it has data and was asked for at an offset
   * (`now` moves: its answers are never cached); `If-None-Match` naming its ETag is a 304.
   */
  function sendPage(
    req: FastifyRequest,
    reply: FastifyReply,
    streamId: string,
    page: DsPage,
    asked: Asked,
  ) {
    const cacheable = page.records.length > 0 && asked.start !== "now";
    const etag = cacheable ? etagOf(streamId, asked.start, page) : undefined;
    const notModified = etag !== undefined && etagMatches(req.headers["if-none-match"], etag);
    // Counted before the page's headers are set (a refusal must not carry them), and only when
    // it is to be written: a revalidation answered 304 holds nothing.
    if (!notModified) reply.expectPage(page.records);
    reply.headers(pageHeaders(page, asked.live, asked.echoed));
    if (etag === undefined) {
      return reply
        .code(200)
        .header("cache-control", "no-store")
        .send(renderBody(page.records, asked.json));
    }
    const credential = req.headers.authorization !== undefined;
    reply.header("etag", etag);
    reply.headers(cacheHeaders(opts.cacheMaxAgeS, credential, asked.start === "-1"));
    // A browser's own cache keeps one token's page apart from another's; a compressed copy is
    // kept apart from a plain one whether or not this answer is compressed.
    addVary(reply, "authorization, accept-encoding");
    // A 304 says what the 200 would have said of caching (RFC 9110, 15.4.5).
    if (notModified) return reply.code(304).send();
    return reply.code(200).send(renderBody(page.records, asked.json));
  }

  async function longPoll(
    req: FastifyRequest,
    reply: FastifyReply,
    addr: DsAddress,
    streamId: string,
    asked: Asked,
    from: bigint,
  ) {
    const got = await serveLongPoll(
      {
        ...addr,
        call: call(req, reply),
        query: {
          start: { seq_num: from.toString() },
          clamp: false,
          wait: opts.longPollMs / 1000,
          int64: "string",
        },
        format: "base64",
        int64: "number",
      },
      opts.subscribe,
      clientKey(req),
    ).catch((err: unknown) => {
      // The wait ended before the subscription's first frame (a star slow to answer): nothing
      // arrived that this gateway saw, which is the 204 the client polls again after. A failure
      // is not: it stays a 503, or the client would poll again at once, told it is up to date.
      if (err instanceof WaitPassed && !reply.raw.destroyed) {
        return { records: [], tail: null, closed: false };
      }
      throw err;
    });
    const tail = got.tail ? BigInt(got.tail.seq_num) : from;
    const last = got.records.at(-1);
    const page: DsPage = {
      records: got.records,
      next: last ? BigInt(last.seq_num) + 1n : from,
      tail,
      closed: got.closed === true,
    };
    if (page.records.length === 0) {
      return reply
        .code(204)
        .headers({ ...pageHeaders(page, true, asked.echoed), "cache-control": "no-store" })
        .send();
    }
    return sendPage(req, reply, streamId, page, asked);
  }

  async function serveSse(
    req: FastifyRequest,
    reply: FastifyReply,
    addr: DsAddress,
    stream: Omit<DsStream, "tail">,
    from: bigint,
    clamp: boolean,
    echoed: string | undefined,
  ) {
    const c = call(req, reply);
    const rendering = renderingOf(stream.contentType);
    const session = new DsSseSession({
      source: subscriptionSource({ ...addr, call: c }, opts.subscribe),
      cursor: { start: { seq_num: from.toString() }, clamp },
      from,
      rendering,
      echoed,
      closeAfterMs: opts.sseCloseMs,
      slowConsumerMs: opts.subscribe.slowConsumerMs,
      endLingerMs: opts.subscribe.sseTiming.endLingerMs,
      onSlowConsumer: () => opts.subscribe.metrics.slowConsumers.inc({ kind: DS_SSE }),
      signal: c.signal ?? new AbortController().signal,
    });
    const socket = req.raw.socket;
    await trackSession(opts.subscribe, DS_SSE, clientKey(req), session, socket, async () => {
      try {
        await session.start();
      } catch (err) {
        // The client left while the read was opening: nobody to answer.
        if (c.signal?.aborted) return;
        throw err;
      }
      const headers: Record<string, string> = { ...SSE_HEADERS, ...SECURITY_HEADERS };
      if (rendering === "base64") headers["stream-sse-data-encoding"] = "base64";
      await session.run(takeOverConnection(reply, 200, headers));
    });
  }
}

function call(req: FastifyRequest, reply: FastifyReply): CallOptions {
  return { authorization: req.headers.authorization, signal: clientAbortSignal(reply) };
}

function bodyOf(req: FastifyRequest): Buffer {
  return Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
}

function streamHeaders(stream: DsStream): Record<string, string> {
  return {
    "stream-next-offset": offsetOf(stream.tail),
    ...(stream.closed ? { "stream-closed": "true" } : {}),
  };
}

function expiryOut(stream: DsStream): Record<string, string> {
  const { idleMs, atMs } = stream.expiry;
  if (idleMs !== "0") return { "stream-ttl": String(BigInt(idleMs) / 1000n) };
  if (atMs !== "0") return { "stream-expires-at": new Date(Number(atMs)).toISOString() };
  return {};
}

/** What a read asked for: its offset as sent (`-1`, `now` or a concrete one) and its mode. */
interface Asked {
  start: string;
  live: boolean;
  json: boolean;
  echoed: string | undefined;
}

function pageHeaders(page: DsPage, live: boolean, echoed: string | undefined) {
  const upToDate = page.next >= page.tail;
  return {
    "stream-next-offset": offsetOf(page.next),
    ...(upToDate ? { "stream-up-to-date": "true" } : {}),
    ...(page.closed ? { "stream-closed": "true" } : {}),
    ...(live || !page.closed ? { "stream-cursor": nextCursor(Date.now(), echoed) } : {}),
  };
}
