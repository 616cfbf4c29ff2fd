// A request's upstream calls end when its client goes away: a response closed before it
// finished means nobody waits for the answer any more.
import type { FastifyReply } from "fastify";

type Response = FastifyReply["raw"];

const controllers = new WeakMap<Response, AbortController>();

/** One listener for every response ("close" comes once; `on` keeps no once-wrapper). */
function onClose(this: Response): void {
  if (!this.writableFinished) controllers.get(this)?.abort();
}

/** Aborts once the reply's response closes unfinished. */
export function clientAbortSignal(reply: FastifyReply): AbortSignal {
  const abort = new AbortController();
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
