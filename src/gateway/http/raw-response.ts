// Long-lived responses (SSE, NDJSON) are written by their sessions, not by Fastify: take the
// response over and send its head, keeping the headers hooks already set on the reply (CORS).
import type { ServerResponse } from "node:http";
import type { FastifyReply } from "fastify";

export function takeOverResponse(
  reply: FastifyReply,
  status: number,
  headers: Record<string, string>,
): ServerResponse {
  reply.hijack();
  const res = reply.raw;
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) res.setHeader(name, value);
  }
  res.writeHead(status, headers);
  // The client learns at once that the session is open, before the first event or ack.
  res.flushHeaders();
  return res;
}
