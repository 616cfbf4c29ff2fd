// A request's upstream calls end when its client goes away: a response closed before it
// finished means nobody waits for the answer any more.
import type { FastifyReply } from "fastify";

/** Aborts once the reply's response closes unfinished. */
export function clientAbortSignal(reply: FastifyReply): AbortSignal {
  const abort = new AbortController();
  // "close" comes once; `on` keeps no once-wrapper for a long response's life.
  reply.raw.on("close", () => {
    if (!reply.raw.writableFinished) abort.abort();
  });
  return abort.signal;
}
