// One gRPC unary call over a bare HTTP/2 session: the request framed by hand (a 5-byte prefix,
// uncompressed), the answer's status and metadata read from its trailers. grpc-js spends 100 to
// 230 µs more per call in its caller (interceptors, filters, call and status objects;
// `npm run bench:unary-transport`, docs/benchmarks.md), most of a small request's cost in the
// gateway. Streaming calls stay on grpc-js. Once started, a call's request may have reached the
// star whatever happens next, except when the star refused its stream unopened (REFUSED_STREAM,
// as after a GOAWAY below its id): then it certainly did not.
import http2 from "node:http2";
import * as grpc from "@grpc/grpc-js";
import type { MethodDefinition } from "@grpc/proto-loader";
import { GRPC_MESSAGE_LIMIT } from "../../contract/proto/index.ts";

/** How a unary call ended: its status, and whether the request may have reached the star. */
export interface UnaryEnd<Res> {
  status: { code: grpc.status; details: string; metadata: grpc.Metadata };
  response?: Res;
  sent: boolean;
}

export interface UnaryCall {
  /** Ends the call with CANCELLED (the star is told, with RST_STREAM). */
  cancel(): void;
}

const { NGHTTP2_CANCEL, NGHTTP2_REFUSED_STREAM } = http2.constants;

/** `grpc-timeout`: at most 8 digits and a unit; milliseconds cover a gateway's deadlines. */
function timeoutHeader(ms: number): string {
  return `${Math.min(99_999_999, Math.max(1, Math.ceil(ms)))}m`;
}

/** grpc-message is percent-encoded; a malformed one is taken as it is. */
function decodeMessage(value: unknown): string {
  const raw = typeof value === "string" ? value : "";
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** The one message of a unary answer, or why it is not one. */
function onlyMessage(body: Buffer): Buffer | string {
  if (body.length < 5) return "the star answered OK without a message";
  if (body[0] !== 0) return "the star answered with a compressed message, which was not offered";
  const length = body.readUInt32BE(1);
  if (body.length !== 5 + length) return "the star's answer is not exactly one message";
  return body.subarray(5);
}

export function startUnary<Req, Res>(
  session: http2.ClientHttp2Session,
  def: MethodDefinition<Req, unknown, unknown, Res>,
  request: Req,
  metadata: grpc.Metadata,
  deadline: number,
  done: (end: UnaryEnd<Res>) => void,
  maxMessageBytes = GRPC_MESSAGE_LIMIT,
): UnaryCall {
  const message = encodeRequest(def, request, done);
  if (message === undefined) return { cancel() {} };
  const frame = Buffer.allocUnsafe(5 + message.length);
  frame[0] = 0;
  frame.writeUInt32BE(message.length, 1);
  message.copy(frame, 5);
  const headers: http2.OutgoingHttpHeaders = {
    ...metadata.toHttp2Headers(),
    ":method": "POST",
    ":path": def.path,
    "content-type": "application/grpc",
    te: "trailers",
  };
  const left = deadline - Date.now();
  if (Number.isFinite(left)) headers["grpc-timeout"] = timeoutHeader(left);

  let ended: "deadline" | "cancelled" | "too large" | undefined;
  let received = 0;
  let status: http2.IncomingHttpHeaders | undefined;
  const chunks: Buffer[] = [];
  let stream: http2.ClientHttp2Stream;
  try {
    stream = session.request(headers);
  } catch (err) {
    const details = `the connection to the star ended: ${(err as Error).message}`;
    queueMicrotask(() => done(failure(grpc.status.UNAVAILABLE, details, false)));
    return { cancel() {} };
  }
  const timer = Number.isFinite(left)
    ? setTimeout(
        () => {
          ended ??= "deadline";
          stream.close(NGHTTP2_CANCEL);
        },
        Math.max(0, left),
      )
    : undefined;
  const take = (h: http2.IncomingHttpHeaders) => {
    if (h["grpc-status"] !== undefined) status = h;
  };
  stream.on("response", take);
  stream.on("trailers", take);
  stream.on("data", (chunk: Buffer) => {
    received += chunk.length;
    // The bound grpc-js channels keep: a star that sends more is cut off, not buffered.
    if (received > 5 + maxMessageBytes) {
      ended ??= "too large";
      stream.close(NGHTTP2_CANCEL);
      return;
    }
    chunks.push(chunk);
  });
  // 'close' says how the call ended; an error (a reset, the session gone) is seen there too.
  stream.on("error", () => {});
  stream.on("close", () => {
    clearTimeout(timer);
    if (ended === "deadline") {
      return done(failure(grpc.status.DEADLINE_EXCEEDED, "the call's deadline passed", true));
    }
    if (ended === "cancelled") return done(failure(grpc.status.CANCELLED, "cancelled", true));
    if (ended === "too large") {
      const details = `the star's answer is over the ${maxMessageBytes}-byte message limit`;
      return done(failure(grpc.status.RESOURCE_EXHAUSTED, details, true));
    }
    if (!status) {
      // A stream that never got its id never left this process (on a connected session it
      // gets one within request(), before any listener could hear its 'ready').
      const unsent = stream.id === undefined || stream.rstCode === NGHTTP2_REFUSED_STREAM;
      const details = unsent
        ? "the connection to the star ended before the call went out"
        : `the star's connection ended before the call did (code ${stream.rstCode})`;
      return done(failure(grpc.status.UNAVAILABLE, details, !unsent));
    }
    const code = Number(status["grpc-status"]) as grpc.status;
    const trailers = grpc.Metadata.fromHttp2Headers(status);
    if (code !== grpc.status.OK) {
      const details = decodeMessage(status["grpc-message"]);
      return done({ status: { code, details, metadata: trailers }, sent: true });
    }
    const body = onlyMessage(Buffer.concat(chunks));
    if (typeof body === "string") return done(failure(grpc.status.INTERNAL, body, true));
    let response: Res;
    try {
      response = def.responseDeserialize(body);
    } catch (err) {
      const details = `the star's answer does not decode: ${(err as Error).message}`;
      return done(failure(grpc.status.INTERNAL, details, true));
    }
    done({ status: { code, details: "OK", metadata: trailers }, response, sent: true });
  });
  stream.end(frame);
  return {
    cancel() {
      if (stream.closed) return;
      ended ??= "cancelled";
      stream.close(NGHTTP2_CANCEL);
    },
  };
}

/**
 * The request's bytes; a request that does not encode ends the call INTERNAL (as grpc-js answers
 * it: nothing went out), on a later turn, as a call's end always comes, and is undefined.
 */
export function encodeRequest<Req, Res>(
  def: MethodDefinition<Req, unknown, unknown, Res>,
  request: Req,
  done: (end: UnaryEnd<Res>) => void,
): Buffer | undefined {
  try {
    return def.requestSerialize(request);
  } catch (err) {
    const details = `the request does not encode: ${(err as Error).message}`;
    queueMicrotask(() => done(failure(grpc.status.INTERNAL, details, false)));
    return undefined;
  }
}

function failure(code: grpc.status, details: string, sent: boolean): UnaryEnd<never> {
  return { status: { code, details, metadata: new grpc.Metadata() }, sent };
}
