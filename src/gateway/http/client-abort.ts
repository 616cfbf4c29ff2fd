// A request's upstream calls end when its client goes away: a response closed before it
// finished means nobody waits for the answer any more.
import type { Http2ServerResponse } from "node:http2";
import type { FastifyReply } from "fastify";

type Response = FastifyReply["raw"];

const controllers = new WeakMap<Response, AbortController>();

/**
 * One listener for every response ("close" comes once; `on` keeps no once-wrapper). An HTTP/2
 * response whose stream was reset (or its session destroyed) emits "finish" before "close" and
 * reads writableFinished true: one the gateway never ended (writableEnded false) was cut too.
 */
function onClose(this: Response): void {
  if (!this.writableFinished || !this.writableEnded) controllers.get(this)?.abort();
}

/**
 * Closed already, before the route ran: its "close" will not come again. An HTTP/2 stream can
 * be reset (its session destroyed) between the request's arrival and its handler.
 */
function closedAlready(res: Response): boolean {
  // HTTP/2's compatibility response has no `destroyed` of its own: its stream tells.
  const { stream } = res as Partial<Pick<Http2ServerResponse, "stream">>;
  return stream ? stream.closed || stream.destroyed : res.destroyed;
}

/** Aborts once the reply's response closes unfinished (at once if it is closed already). */
export function clientAbortSignal(reply: FastifyReply): AbortSignal {
  const abort = new AbortController();
  if (closedAlready(reply.raw)) {
    abort.abort();
    return abort.signal;
  }
  controllers.set(reply.raw, abort);
  reply.raw.on("close", onClose);
  return abort.signal;
}

/**
 * For a response that a session holds to its end, whose own close stops it from then on: the
 * signal is let go (it no longer aborts), so the session does not keep it for its whole life.
 */
export function releaseClientAbort(res: Response): void {
  res.off("close", onClose);
  controllers.delete(res);
}
