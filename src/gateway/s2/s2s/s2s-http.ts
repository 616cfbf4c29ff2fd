// The HTTP side of s2s sessions: POST and GET /v1/streams/{stream}/records with Content-Type:
// s2s/proto, as S2's SDKs open them on Node (cleartext HTTP/2, or h2, on the gateway's port).
// The messages, the append path, the read query and the errors are the S2 face's, the same the
// unary routes and SSE sessions use.
import http2, { type Http2ServerResponse } from "node:http2";
import type { FastifyReply } from "fastify";
import type { AppendAdmission } from "../../http/index.ts";
import { clientKey, takeOverResponse } from "../../http/index.ts";
import type { SubscribeDeps } from "../../sessions/index.ts";
import { bodyChunks, SourceRead, subscriptionSource, trackSession } from "../../sessions/index.ts";
import { stringifyJsonExact } from "../../translate/index.ts";
import type { CallOptions, Upstream } from "../../upstream/index.ts";
import { S2AppendPipeline } from "../append-pipeline.ts";
import type { S2AppendInput } from "../commands.ts";
import { s2Error, toS2Error } from "../errors.ts";
import { openEnded } from "../open-ended.ts";
import { idleEndMs, type S2ReadQuery } from "../read-query.ts";
import { readBatchToS2, type S2AppendAck } from "../records.ts";
import { s2Wire } from "../wire.ts";
import { S2sAppendSession } from "./append-session.ts";
import { responseCompression } from "./compression.ts";
import { FrameError, type TerminalFrame } from "./frame.ts";
import { FrameWriter } from "./frame-output.ts";
import { S2sReadSession } from "./read-session.ts";

export const S2S_TYPE = "s2s/proto";

export function isS2s(contentType: string | undefined): boolean {
  return contentType?.split(";")[0]?.trim().toLowerCase() === S2S_TYPE;
}

/** The session kinds, in /metrics (sessions, slow consumers). */
const S2S_APPEND = "s2s_append";
const S2S_READ = "s2s_read";
const S2S_HEADERS = {
  "content-type": S2S_TYPE,
  // As S2 answers: no proxy may compress, rewrite or buffer a session.
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
};

export interface S2sDeps {
  upstream: Upstream;
  /** The reads' sources, session metrics and draining, as SSE sessions have them. */
  subscribe: SubscribeDeps;
  /** Each input's bytes are admitted while it is appended, as an NDJSON line is. */
  admission: AppendAdmission;
  /** An append session's star session ends after this long with nothing unanswered. */
  idleMs: number;
}

export interface S2sStream {
  bucket: string;
  key: string;
  call: CallOptions;
}

/** Serves an append session; every outcome, errors included, is a frame of its response. */
export async function serveS2sAppend(
  stream: S2sStream,
  reply: FastifyReply,
  deps: S2sDeps,
): Promise<void> {
  const req = reply.request.raw;
  if (req.httpVersionMajor < 2) {
    // An HTTP/1.1 body is the body guard's (its timeouts would cut a session), and S2's SDKs
    // open s2s on HTTP/2 only. The body is left unread: the connection cannot carry more.
    reply.header("connection", "close");
    throw s2Error("not_implemented", "s2s append sessions are served on HTTP/2 only");
  }
  const { bucket, key, call } = stream;
  const client = clientKey(reply.request);
  const admitted = deps.admission.session(client);
  const pipeline = new S2AppendPipeline(deps.upstream, { bucket, key }, call, deps.idleMs);
  const session = new S2sAppendSession<S2AppendInput, S2AppendAck>({
    chunks: bodyChunks(req),
    admission: admitted,
    decodeInput: (payload) => s2Wire.AppendInput.decode(payload),
    encodeAck: (ack) => s2Wire.AppendAck.encode(ack),
    submit: async (input, bytes) => {
      admitted.take(bytes);
      const submitted = await pipeline.submit(input).catch((err: unknown) => {
        admitted.give(bytes);
        throw err;
      });
      submitted.ack.then(
        () => admitted.give(bytes),
        () => admitted.give(bytes),
      );
      return submitted;
    },
    terminal,
    draining,
  });
  const socket = req.socket;
  try {
    await trackSession(deps.subscribe, S2S_APPEND, client, session, socket, async () => {
      try {
        await session.run(frameWriter(reply, deps, S2S_APPEND));
      } finally {
        await pipeline.close();
      }
    });
  } finally {
    admitted.release();
    stopSending(reply);
  }
}

/**
 * A session the gateway ended (a terminal frame) while its client still sends: once the
 * response is out, RST_STREAM NO_ERROR tells the client to stop (RFC 9113, 8.1), rather than
 * its stream, and what it sent unread, staying open until it gives up.
 */
function stopSending(reply: FastifyReply): void {
  const req = reply.request.raw;
  const res = reply.raw as unknown as Http2ServerResponse;
  if (req.readableEnded || res.stream.destroyed) return;
  const close = () => {
    if (!res.stream.destroyed) res.stream.close(http2.constants.NGHTTP2_NO_ERROR);
  };
  if (res.writableFinished) close();
  else res.once("finish", close);
}

/** Serves a read session; errors before its first frame are thrown as the request's. */
export async function serveS2sRead(
  stream: S2sStream,
  q: S2ReadQuery,
  reply: FastifyReply,
  deps: S2sDeps,
): Promise<void> {
  const cursor = { start: q.query.start, clamp: q.query.clamp };
  const session = new S2sReadSession({
    read: new SourceRead(
      openEnded(subscriptionSource(stream, deps.subscribe)),
      cursor,
      stream.call.signal,
      "the s2s read session ended",
    ),
    bounds: {
      ...(q.count === undefined ? {} : { count: q.count }),
      ...(q.bytes === undefined ? {} : { bytes: q.bytes }),
      ...(q.untilMs === undefined ? {} : { untilMs: q.untilMs }),
    },
    idleEndMs: idleEndMs(q),
    encodeBatch: (records, tail) => s2Wire.ReadBatch.encode(readBatchToS2(records, tail)),
    terminal,
    draining,
  });
  const socket = reply.request.raw.socket;
  await trackSession(
    deps.subscribe,
    S2S_READ,
    clientKey(reply.request),
    session,
    socket,
    async () => {
      await session.start();
      await session.run(frameWriter(reply, deps, S2S_READ));
    },
  );
}

function frameWriter(reply: FastifyReply, deps: S2sDeps, kind: string): FrameWriter {
  const compression = responseCompression(reply.request.headers["accept-encoding"]);
  const out = takeOverResponse(reply, 200, S2S_HEADERS);
  const { slowConsumerMs, metrics } = deps.subscribe;
  return new FrameWriter(out, compression, slowConsumerMs, () =>
    metrics.slowConsumers.inc({ kind }),
  );
}

function terminal(err: unknown): Omit<TerminalFrame, "terminal"> {
  const s2 = err instanceof FrameError ? s2Error("bad_frame", err.message) : err;
  const { status, body } = toS2Error(s2, { resource: "stream" });
  return { status, body: new TextEncoder().encode(stringifyJsonExact(body)) };
}

function draining(): Omit<TerminalFrame, "terminal"> {
  return terminal(s2Error("server_draining", "the gateway is shutting down; resume"));
}
