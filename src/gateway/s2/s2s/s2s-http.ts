// The HTTP side of s2s sessions: POST and GET .../records with Content-Type: s2s/proto, as S2's
// SDKs open them on Node (cleartext HTTP/2 or h2 on the gateway's port). The messages, their
// translation to nova and the errors are the S2 face's, the same the unary routes use.
import type { FastifyReply } from "fastify";
import type { Record__Output } from "../../../gen/nova/v1/Record.ts";
import type { AppendAdmission } from "../../http/index.ts";
import { takeOverResponse } from "../../http/index.ts";
import { stringifyJsonExact } from "../../json/index.ts";
import type { Bounds, Cursor, SubscribeDeps } from "../../sessions/index.ts";
import { bodyChunks, lifetime, readSource } from "../../sessions/index.ts";
import type { CallOptions } from "../../upstream/index.ts";
// The S2 face's modules themselves: its index may come to route here.
import type { S2AppendInput } from "../commands.ts";
import { s2Error, toS2Error } from "../errors.ts";
import { meteredBytes } from "../metering.ts";
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

const S2S_HEADERS = {
  "content-type": S2S_TYPE,
  // As S2 answers: no proxy may compress, rewrite or buffer a session.
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
};

export interface S2sDeps {
  /** The reads' sources, session metrics and draining, as SSE sessions have them. */
  subscribe: SubscribeDeps;
  admission: AppendAdmission;
  /** One AppendInput done as the unary append route does it (appends, fences, trims). */
  append(input: S2AppendInput, stream: S2sStream): Promise<S2AppendAck>;
}

export interface S2sStream {
  bucket: string;
  key: string;
  call: CallOptions;
}

export interface S2sRead extends S2sStream {
  cursor: Cursor;
  bounds: Bounds;
  /** Caught up, the session ends after this long without a record; undefined: it follows. */
  waitMs: number | undefined;
}

/** Serves an append session; every outcome, errors included, is a frame of its response. */
export async function serveS2sAppend(
  stream: S2sStream,
  reply: FastifyReply,
  deps: S2sDeps,
): Promise<void> {
  const req = reply.request.raw;
  const writer = frameWriter(reply, deps);
  const session = new S2sAppendSession<S2AppendInput, S2AppendAck>({
    chunks: bodyChunks(req),
    writer,
    decodeInput: (payload) => s2Wire.AppendInput.decode(payload),
    encodeAck: (ack) => s2Wire.AppendAck.encode(ack),
    append: async (input, bytes) => {
      deps.admission.acquire(bytes);
      try {
        return await deps.append(input, stream);
      } finally {
        deps.admission.release(bytes);
      }
    },
    terminal,
    draining,
  });
  const socket = req.socket;
  await lifetime(
    deps.subscribe,
    "s2s_append",
    { drain: () => session.drain(), destroy: () => socket.destroy() },
    () => session.run(),
  );
}

/** Serves a read session; errors before its first frame are thrown as the request's. */
export async function serveS2sRead(read: S2sRead, reply: FastifyReply, deps: S2sDeps) {
  const stop = new AbortController();
  const signal = read.call.signal ? AbortSignal.any([read.call.signal, stop.signal]) : stop.signal;
  const batches = readSource(read, deps.subscribe)(read.cursor, signal)[Symbol.asyncIterator]();
  const session = new S2sReadSession<Record__Output, Parameters<typeof readBatchToS2>[1]>({
    batches,
    bounds: read.bounds,
    meteredBytes,
    waitMs: read.waitMs,
    encodeBatch: (records, tail) => s2Wire.ReadBatch.encode(readBatchToS2(records, tail)),
    terminal,
    draining,
    stop: () => stop.abort(),
  });
  const socket = reply.request.raw.socket;
  await lifetime(
    deps.subscribe,
    "s2s_read",
    { drain: () => session.drain(), destroy: () => socket.destroy() },
    async () => {
      await session.start();
      await session.run(frameWriter(reply, deps));
    },
  );
}

function frameWriter(reply: FastifyReply, deps: S2sDeps): FrameWriter {
  const compression = responseCompression(reply.request.headers["accept-encoding"]);
  const out = takeOverResponse(reply, 200, S2S_HEADERS);
  return new FrameWriter(out, compression, deps.subscribe.slowConsumerMs);
}

function terminal(err: unknown): Omit<TerminalFrame, "terminal"> {
  const s2 = err instanceof FrameError ? s2Error("bad_frame", err.message) : err;
  const { status, body } = toS2Error(s2, { resource: "stream" });
  return { status, body: new TextEncoder().encode(stringifyJsonExact(body)) };
}

function draining(): Omit<TerminalFrame, "terminal"> {
  return terminal(s2Error("server_draining", "the gateway is shutting down; reconnect"));
}
