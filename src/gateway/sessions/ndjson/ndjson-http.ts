// The HTTP side of an NDJSON append session: POST .../records with
// Content-Type: application/x-ndjson, answered with one NDJSON line per batch and an end line.
import type { IncomingMessage } from "node:http";
import type { FastifyReply } from "fastify";
import type {
  AppendAdmission,
  BodyTimeouts,
  ClientSessions,
  GatewayMetrics,
  LiveSessions,
} from "../../http/index.ts";
import {
  ConnectionSession,
  clientKey,
  takeOverResponse,
  validationError,
} from "../../http/index.ts";
import type {
  AppendLimits,
  Int64Mode,
  NdjsonLimits,
  ProducerProto,
  RecordFormat,
  ShapeCheck,
} from "../../translate/index.ts";
import { NDJSON_TYPE } from "../../translate/index.ts";
import type { CallOptions, Upstream } from "../../upstream/index.ts";
import { NdjsonAppendSession } from "./ndjson-session.ts";

export interface AppendSessionDeps {
  upstream: Upstream;
  metrics: GatewayMetrics;
  sessions: LiveSessions;
  /** Sessions open per client, bounded. */
  clientSessions: ClientSessions;
  admission: AppendAdmission;
  appendLimits: AppendLimits;
  lineLimits: NdjsonLimits;
  /** How long the unread rest of a body may take to arrive once a session stopped early. */
  bodyTimeouts: BodyTimeouts;
  /** How long a session may send no line with nothing in flight. */
  idleMs: number;
  /** How long a client may leave its acks unread. */
  slowConsumerMs: number;
}

export interface AppendParts {
  bucket: string;
  key: string;
  call: CallOptions;
  format: RecordFormat;
  int64: Int64Mode;
  /** The nova-producer-* headers: the first line's stamp (docs/producers.md). */
  producer?: ProducerProto;
}

/**
 * A session that stopped reading early (an error line, draining) has sent its whole response
 * while the client may still be sending: the rest of the body is read and dropped, so that once
 * it ends the connection carries the next request. A client that neither finishes nor sends
 * (undici stops sending once the response is complete) has its connection closed after the body
 * timeouts; no request can follow on it, so none is lost unanswered.
 */
function discardRest(body: IncomingMessage, timeouts: BodyTimeouts): void {
  const socket = body.socket;
  // Gone already (the client closed it): its close event has passed, nothing is left to read.
  if (socket.destroyed) return;
  const close = () => socket.destroy();
  const idle = setTimeout(close, timeouts.idleMs);
  const total = setTimeout(close, timeouts.totalMs);
  const stop = () => {
    clearTimeout(idle);
    clearTimeout(total);
  };
  body.on("data", () => idle.refresh());
  body.once("end", stop);
  socket.once("close", stop);
  body.resume();
}

/** Resolves once the request body has ended or its connection is gone. */
function bodyOver(body: IncomingMessage): Promise<void> {
  const socket = body.socket;
  if (body.readableEnded || socket.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const over = () => {
      body.off("end", over);
      socket.off("close", over);
      resolve();
    };
    body.once("end", over);
    // A request cut short emits neither 'end' nor 'close': its socket closes.
    socket.once("close", over);
  });
}

/** The session kind, in /metrics (sessions, slow consumers). */
const NDJSON = "ndjson";
/** One object for every session: Fastify caches a compiled validator per schema object. */
const APPEND_INPUT = { $ref: "AppendInput#" };

/**
 * An NDJSON line bypasses Fastify's body validation, so it is checked with the same compiled
 * AppendInput schema (the route's validator compiler and shared schemas), failing as a unary
 * body that broke it would.
 */
function lineCheck(reply: FastifyReply): ShapeCheck {
  const validate = reply.request.compileValidationSchema(APPEND_INPUT, "body");
  return (value) => {
    if (!validate(value)) throw validationError(validate.errors ?? [], "body", value);
  };
}

/** Serves the session; errors before the first byte (opening it) are thrown as HTTP errors. */
export async function serveAppendSession(
  parts: AppendParts,
  body: IncomingMessage,
  reply: FastifyReply,
  deps: AppendSessionDeps,
): Promise<void> {
  const socket = body.socket;
  const client = clientKey(reply.request);
  let release: () => void;
  try {
    release = deps.clientSessions.hold(client);
  } catch (err) {
    // Refused before any of the body was read: the connection closes after the refusal.
    if (body.httpVersionMajor === 1) reply.header("connection", "close");
    throw err;
  }
  // The client's append bound counts the session's lines in flight.
  const admitted = deps.admission.session(client);
  const session = new NdjsonAppendSession({
    upstream: deps.upstream,
    bucket: parts.bucket,
    key: parts.key,
    authorization: parts.call.authorization,
    body,
    format: parts.format,
    int64: parts.int64,
    appendLimits: deps.appendLimits,
    checkLine: lineCheck(reply),
    lineLimits: deps.lineLimits,
    admission: admitted,
    signal: parts.call.signal ?? new AbortController().signal,
    producer: parts.producer,
    idleMs: deps.idleMs,
    slowConsumerMs: deps.slowConsumerMs,
    onSlowConsumer: () => deps.metrics.slowConsumers.inc({ kind: NDJSON }),
  });
  deps.metrics.sessions.inc({ kind: NDJSON });
  const done = (async () => {
    await session.open();
    if (socket.destroyed) {
      // Refused (a malformed body, answered by Node's parser) or gone while the session opened:
      // nothing is submitted, so the refusal's "nothing was done" holds; the call is cancelled
      // with the request.
      reply.hijack();
      return;
    }
    const out = takeOverResponse(reply, 200, {
      "content-type": NDJSON_TYPE,
      "cache-control": "no-store",
      "x-accel-buffering": "no",
    });
    await session.run(out);
  })();
  // On shutdown the connection is done only once the client stopped sending too.
  const settled = done.catch(() => {}).then(() => bodyOver(body));
  deps.sessions.track(new ConnectionSession(session, socket), settled);
  try {
    await done;
  } catch (err) {
    // Refused before its response began, with more of the body to come: the refusal says the
    // connection closes, rather than waiting for a body the client may go on sending.
    if (body.httpVersionMajor === 1 && !body.readableEnded && !reply.raw.headersSent) {
      reply.header("connection", "close");
      body.resume();
    }
    throw err;
  } finally {
    deps.metrics.sessions.dec({ kind: NDJSON });
    release();
    admitted.release();
    // An HTTP/2 stream ends with its response; only HTTP/1.1 shares the connection with what follows.
    if (body.httpVersionMajor === 1 && !body.readableEnded && reply.raw.headersSent) {
      discardRest(body, deps.bodyTimeouts);
    }
  }
}
