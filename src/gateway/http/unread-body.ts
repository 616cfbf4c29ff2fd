// A request body the route answered without reading (a 404 or an unrouted method, a 415, a
// refusal before the body): Node leaves a body it saw being read to its reader, so the
// connection would wait for it, answering nothing, for good. A small body is drained (read and
// dropped, still under the body timeouts), so the connection serves the request after it; a
// larger one, or one of unknown length, closes the connection after the answer.
import type { Readable } from "node:stream";
import type { FastifyReply, FastifyRequest } from "fastify";

/** The most of an unread body drained to keep its connection; past it the connection closes. */
export const UNREAD_BODY_DRAIN_BYTES = 64 * 1024;

/** Called as the answer goes out: `body` is the request's body stream, not read to its end. */
export function settleUnreadBody(req: FastifyRequest, reply: FastifyReply, body: Readable): void {
  const length = req.headers["content-length"];
  if (length !== undefined && Number(length) <= UNREAD_BODY_DRAIN_BYTES && !body.destroyed) {
    // Cut by the body timeouts while draining: nothing more can come on this connection.
    body.once("error", () => req.raw.socket?.destroy());
    body.resume();
    return;
  }
  closeAfterAnswer(req, reply);
}

/**
 * The connection closes once the answer is out: HTTP/1.1 says so in the answer (whose keep-alive
 * hint would contradict it). HTTP/2 has no such header; its stream ends with the answer.
 */
export function closeAfterAnswer(req: FastifyRequest, reply: FastifyReply): void {
  if (req.raw.httpVersionMajor !== 1) return;
  reply.header("connection", "close");
  // Set on the response itself by the listener, not on the reply.
  reply.raw.removeHeader("keep-alive");
}
