// Long-lived responses (SSE, NDJSON) are written by their sessions, not by Fastify: take the
// response over and set its head, keeping the headers hooks already set on the reply (CORS).
import type { ServerResponse } from "node:http";
import type { FastifyReply } from "fastify";

/**
 * `flush`: send the head at once, for a session that has nothing to write yet; without it the
 * head goes out with the first write, in the same packet (an SSE session's first events).
 */
export function takeOverResponse(
  reply: FastifyReply,
  status: number,
  headers: Record<string, string>,
  flush = true,
): ServerResponse {
  reply.hijack();
  const res = reply.raw;
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) res.setHeader(name, value);
  }
  res.writeHead(status, headers);
  // The client learns at once that the session is open, before the first event or ack.
  if (flush) res.flushHeaders();
  return res;
}
