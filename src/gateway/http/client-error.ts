// Node's own refusals, before Fastify sees a request (Fastify's `clientErrorHandler` option):
// headers that do not arrive in time, headers over the size limit, bytes that are not HTTP/1.1
// (nor HTTP/2, which the listener hands to its own server).
// The answer is the contract's body and the connection closes: its bytes cannot be trusted.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { errorBody, HttpError } from "../errors/index.ts";

// Not an ESM import, whose face of node:http loads Node's bundled undici (docs/development.md).
const { maxHeaderSize, STATUS_CODES } = process.getBuiltinModule("node:http");

/** Node's socket, as its HTTP server leaves it: the response being written on it, if any. */
type ServerSocket = Duplex & { _httpMessage?: ServerResponse | null };

const refused = new WeakSet<Duplex>();
/** The last request whose head was read on each connection, and its response. */
const lastExchange = new WeakMap<Duplex, { req: IncomingMessage; res: ServerResponse }>();

/**
 * Notes each HTTP/1.1 request as its head is read (wrapping the server's request handler), so a
 * refusal can tell bad bytes in a request's body from bad bytes after it.
 */
export function noteExchanges<Req extends IncomingMessage, Res extends ServerResponse>(
  handler: (req: Req, res: Res) => void,
): (req: Req, res: Res) => void {
  return (req, res) => {
    if (req.httpVersionMajor === 1) lastExchange.set(req.socket, { req, res });
    handler(req, res);
  };
}

export function clientError(headersTimeoutMs: number) {
  return (err: NodeJS.ErrnoException, socket: Duplex): void => {
    if (err.code === "ECONNRESET" || socket.destroyed) return;
    // Node's parser reports again on every later chunk; the first refusal is the answer.
    if (refused.has(socket)) return;
    refused.add(socket);
    socket.pause();
    const last = lastExchange.get(socket);
    // Bad bytes in the body of the request being read: the refusal is that request's answer.
    const answering = last && !last.req.complete ? last.res : undefined;
    answerAfterInFlight(socket as ServerSocket, refusal(err, headersTimeoutMs), answering);
  };
}

/** The most bytes of a request line and headers, HTTP/1.1's parser's limit (16 KiB). */
export const MAX_HEADER_BYTES = maxHeaderSize;

export function headerTooLarge(): HttpError {
  return new HttpError(
    431,
    "header_too_large",
    `the request line and headers are over ${maxHeaderSize} bytes`,
  );
}

function refusal(err: NodeJS.ErrnoException, headersTimeoutMs: number): HttpError {
  switch (err.code) {
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return new HttpError(
        408,
        "request_timeout",
        `the request's headers did not arrive within ${headersTimeoutMs} ms`,
        { retryable: true },
      );
    case "HPE_HEADER_OVERFLOW":
      return headerTooLarge();
    default:
      return new HttpError(
        400,
        "bad_request",
        `the request is not valid HTTP/1.1, nor does it open with the HTTP/2 preface (${err.code ?? "parse error"}); nothing was done`,
      );
  }
}

/**
 * Requests read before the bad bytes (pipelined, or a session still streaming) are answered
 * first, in order, as Node queues them; the refusal follows the last of them (or takes the place
 * of `answering`'s response, unless that one has begun), so it never cuts into an answer or
 * takes the place of another's.
 */
function answerAfterInFlight(
  socket: ServerSocket,
  http: HttpError,
  answering: ServerResponse | undefined,
): void {
  const inFlight = socket._httpMessage;
  if (inFlight && !inFlight.writableFinished && inFlight !== answering) {
    // Node moves the next queued response onto the socket in its own 'finish' listener, which
    // runs before this one.
    inFlight.once("finish", () => answerAfterInFlight(socket, http, answering));
    inFlight.once("close", () => {
      if (!inFlight.writableFinished) socket.destroy();
    });
    return;
  }
  if (inFlight === answering && answering?.headersSent) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify(errorBody(http));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${http.status} ${STATUS_CODES[http.status]}\r\ncontent-type: application/json; charset=utf-8\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
