// The HTTP side of an NDJSON append session: POST .../records with
// Content-Type: application/x-ndjson, answered with one NDJSON line per batch and an end line.
import type { IncomingMessage } from "node:http";
import type { FastifyReply } from "fastify";
import type { AppendAdmission, GatewayMetrics, LiveSessions } from "../http/index.ts";
import { takeOverResponse, validationError } from "../http/index.ts";
import type {
  AppendLimits,
  Int64Mode,
  NdjsonLimits,
  RecordFormat,
  ShapeCheck,
} from "../json/index.ts";
import { NDJSON_TYPE } from "../json/index.ts";
import type { CallOptions, Upstream } from "../upstream/index.ts";
import { NdjsonAppendSession } from "./ndjson-session.ts";

export interface AppendSessionDeps {
  upstream: Upstream;
  metrics: GatewayMetrics;
  sessions: LiveSessions;
  admission: AppendAdmission;
  appendLimits: AppendLimits;
  lineLimits: NdjsonLimits;
}

export interface AppendParts {
  bucket: string;
  key: string;
  call: CallOptions;
  format: RecordFormat;
  int64: Int64Mode;
}

/**
 * A session that stopped reading early (an error line, a refused open, draining): the rest of
 * the body is discarded, as Node does for an unread one, and since the connection cannot carry
 * another request before a body the client may never finish (undici stops sending it once the
 * response is complete), our side of it closes once the response is out.
 */
function closeAfterResponse(body: IncomingMessage, reply: FastifyReply): void {
  body.resume();
  const socket = body.socket;
  if (reply.raw.writableFinished) socket.end();
  else reply.raw.once("finish", () => socket.end());
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
    admission: deps.admission,
    signal: parts.call.signal ?? new AbortController().signal,
  });
  deps.metrics.sessions.inc({ kind: "ndjson" });
  const done = (async () => {
    await session.open();
    const out = takeOverResponse(reply, 200, {
      "content-type": NDJSON_TYPE,
      "cache-control": "no-store",
      "x-accel-buffering": "no",
    });
    await session.run(out);
  })();
  // On shutdown the connection is done only once the client stopped sending too.
  const settled = done.catch(() => {}).then(() => bodyOver(body));
  deps.sessions.track({ drain: () => session.drain(), destroy: () => socket.destroy() }, settled);
  try {
    await done;
  } finally {
    deps.metrics.sessions.dec({ kind: "ndjson" });
    if (!body.readableEnded) closeAfterResponse(body, reply);
  }
}
