// S2's records routes: append (JSON or protobuf), read (JSON, protobuf, or an SSE session) and
// check tail on /v1/streams/{stream}/records. Requests with content-type s2s/proto go to the s2s
// transport.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { rangeNotSatisfiable } from "../errors/index.ts";
import type { ReadService } from "../history/index.ts";
import { type AppendAdmission, clientKey, takeBody, takeOverConnection } from "../http/index.ts";
import {
  SSE_HEADERS,
  type SubscribeDeps,
  serveLongPoll,
  subscriptionSource,
  trackSession,
  wantsEventStream,
} from "../sessions/index.ts";
import type { Query } from "../translate/index.ts";
import type { Upstream } from "../upstream/index.ts";
import { s2Call, streamOf } from "./context.ts";
import { s2Error } from "./errors.ts";
import {
  appendAckToS2Json,
  appendInputFromS2Json,
  positionToS2Json,
  readBatchToS2Json,
  s2Format,
} from "./json.ts";
import { openEnded } from "./open-ended.ts";
import { idleEndMs, parseS2ReadQuery, type S2ReadQuery } from "./read-query.ts";
import { positionToS2, readBatchToS2, type S2ReadBatch } from "./records.ts";
import { isS2s, serveS2sAppend, serveS2sRead } from "./s2s/index.ts";
import { s2Schemas } from "./schemas.gen.ts";
import { appendS2, cutToS2Bounds, readS2Page, s2Tail } from "./service.ts";
import { sessionStartRefusal, startNeedsTail } from "./session-start-rule.ts";
import { S2SseSession } from "./sse.ts";
import { asksForNothing } from "./unary-read-rule.ts";
import { S2_PROTO_TYPE, s2Wire, wantsProtoReply } from "./wire.ts";

export interface S2RecordRoutesOptions {
  upstream: Upstream;
  /** s2s append sessions admit each input, as NDJSON sessions admit each line. */
  admission: AppendAdmission;
  reads: ReadService;
  subscribe: SubscribeDeps;
  bodyLimit: number;
  sessionIdleMs: number;
}

/** The session kind of S2's SSE read, in /metrics (sessions, slow consumers). */
const S2_SSE = "s2_sse";
const wantsProto = (req: FastifyRequest) => wantsProtoReply(req.headers.accept);

export async function s2RecordRoutes(app: FastifyInstance, opts: S2RecordRoutesOptions) {
  const { upstream, reads, subscribe } = opts;
  const s2s = { upstream, subscribe, admission: opts.admission, idleMs: opts.sessionIdleMs };
  const config = { resource: "stream" as const };
  const path = "/v1/streams/:stream/records";

  app.post(
    path,
    {
      config: {
        ...config,
        admitsAppend: true,
        // s2s is served on HTTP/2 only: an HTTP/1.1 body of it is refused, and guarded.
        sessionBody: (req) => req.raw.httpVersionMajor >= 2 && isS2s(req.headers["content-type"]),
      },
      schema: s2Schemas.append,
      bodyLimit: opts.bodyLimit,
    },
    appendRecords,
  );
  app.get(path, { config, schema: s2Schemas.read }, readRecords);
  app.get(`${path}/tail`, { config, schema: s2Schemas.checkTail }, checkTail);

  async function appendRecords(req: FastifyRequest, reply: FastifyReply) {
    if (isS2s(req.headers["content-type"])) {
      return serveS2sAppend({ ...streamOf(req), call: s2Call(req, reply) }, reply, s2s);
    }
    const address = streamOf(req);
    const body = takeBody(req);
    const input = Buffer.isBuffer(body)
      ? s2Wire.AppendInput.decode(body)
      : appendInputFromS2Json(body, s2Format(req.headers["s2-format"]));
    const ack = await appendS2(upstream, address, input, s2Call(req, reply));
    if (wantsProto(req)) return sendProto(reply, s2Wire.AppendAck.encode(ack));
    return appendAckToS2Json(ack);
  }

  async function readRecords(req: FastifyRequest, reply: FastifyReply) {
    const address = streamOf(req);
    const call = s2Call(req, reply);
    const format = s2Format(req.headers["s2-format"]);
    const q = parseS2ReadQuery(req.query as Query);
    // A read that may wait (a session, or `wait`) and that S2 would refuse is refused before it
    // starts; a unary read without `wait` is judged by what it finds (readS2Page).
    const refuseStart = async (session: S2ReadQuery) => {
      if (!startNeedsTail(session)) return;
      const tail = await s2Tail(upstream, reads, address, call);
      const refusal = sessionStartRefusal(session, tail);
      if (refusal) throw rangeNotSatisfiable(refusal, tail ?? undefined);
    };
    if (isS2s(req.headers["content-type"])) {
      await refuseStart(q);
      return serveS2sRead({ ...address, call }, q, reply, s2s);
    }
    if (wantsEventStream(req.headers.accept)) {
      const session = resumed(q, lastEventId(req.headers["last-event-id"]));
      await refuseStart(session);
      return serveS2Sse(req, reply, { ...address, call }, session, subscribe, format);
    }
    let batch: S2ReadBatch;
    if (q.query.wait > 0) {
      // S2 refuses a start after the tail before it waits; nova's read would wait at the tail.
      await refuseStart(q);
      const got = await serveLongPoll(
        { ...address, call, query: q.query, format: "base64", int64: "number" },
        subscribe,
        clientKey(req),
      );
      // Asking for nothing, it still waits as S2 does: for a record, or the wait's end.
      const records = asksForNothing(q) ? [] : cutToS2Bounds(got.records, q);
      batch = readBatchToS2(records, got.tail);
    } else {
      batch = await readS2Page(reads, address, q, call);
    }
    reply.expectPage(batch.records);
    if (wantsProto(req)) return sendProto(reply, s2Wire.ReadBatch.encode(batch));
    return readBatchToS2Json(batch, format);
  }

  async function checkTail(req: FastifyRequest, reply: FastifyReply) {
    const tail = await s2Tail(upstream, reads, streamOf(req), s2Call(req, reply));
    return { tail: positionToS2Json(positionToS2(tail)) };
  }
}

function sendProto(reply: FastifyReply, body: Buffer): FastifyReply {
  return reply.type(S2_PROTO_TYPE).send(body);
}

/** `<seq_num>,<count>,<bytes>`, as S2's session events carry it. */
function lastEventId(header: string | string[] | undefined) {
  if (header === undefined) return undefined;
  const m = typeof header === "string" ? /^(\d{1,20}),(\d{1,20}),(\d{1,20})$/.exec(header) : null;
  if (!m) {
    throw s2Error(
      "bad_header",
      `last-event-id: must be <seq_num>,<count>,<bytes>, not ${JSON.stringify(header)}`,
    );
  }
  return {
    seqNum: BigInt(m[1] as string),
    count: BigInt(m[2] as string),
    bytes: BigInt(m[3] as string),
  };
}

/**
 * The session a Last-Event-ID resumes, as S2 resumes it: from the record after the last one
 * delivered, with what was delivered taken off count and bytes, the rest as asked (a session
 * reads only the start and clamp of nova's query).
 */
function resumed(q: S2ReadQuery, resume: ReturnType<typeof lastEventId>): S2ReadQuery {
  if (!resume) return q;
  const less = (bound: bigint, done: bigint) => (bound > done ? bound - done : 0n);
  return {
    ...q,
    query: { ...q.query, start: { seq_num: (resume.seqNum + 1n).toString() } },
    ...(q.count === undefined ? {} : { count: less(q.count, resume.count) }),
    ...(q.bytes === undefined ? {} : { bytes: less(q.bytes, resume.bytes) }),
  };
}

async function serveS2Sse(
  req: FastifyRequest,
  reply: FastifyReply,
  stream: { bucket: string; key: string; call: ReturnType<typeof s2Call> },
  q: S2ReadQuery,
  deps: SubscribeDeps,
  format: ReturnType<typeof s2Format>,
): Promise<void> {
  const bounds = {
    ...(q.count === undefined ? {} : { count: q.count }),
    ...(q.bytes === undefined ? {} : { bytes: q.bytes }),
    ...(q.untilMs === undefined ? {} : { untilMs: q.untilMs }),
  };
  const session = new S2SseSession({
    source: openEnded(subscriptionSource(stream, deps)),
    cursor: { start: q.query.start, clamp: q.query.clamp },
    bounds,
    idleEndMs: idleEndMs(q),
    format,
    slowConsumerMs: deps.slowConsumerMs,
    onSlowConsumer: () => deps.metrics.slowConsumers.inc({ kind: S2_SSE }),
    timing: deps.sseTiming,
    signal: stream.call.signal ?? new AbortController().signal,
  });
  const socket = req.raw.socket;
  await trackSession(deps, S2_SSE, clientKey(req), session, socket, async () => {
    await session.start();
    await session.run(takeOverConnection(reply, 200, SSE_HEADERS));
  });
}
