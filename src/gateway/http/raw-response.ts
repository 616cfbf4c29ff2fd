// Long-lived responses (SSE, NDJSON) are written by their sessions, not by Fastify: take the
// response over and set its head, keeping the headers hooks already set on the reply (CORS).
import type { ServerResponse } from "node:http";
import type { FastifyReply } from "fastify";
import { releaseParser } from "./parser-release.ts";

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

/**
 * A response that holds its connection to its end (an SSE session): taken over as above, with
 * HTTP/1.1's `connection: close`, and the connection's parser given back at once.
 */
export function takeOverConnection(
  reply: FastifyReply,
  status: number,
  headers: Record<string, string>,
  flush = true,
): ServerResponse {
  const req = reply.request.raw;
  if (req.httpVersionMajor !== 1) return takeOverResponse(reply, status, headers, flush);
  // The listener's keep-alive hint would contradict the close.
  reply.raw.removeHeader("keep-alive");
  const res = takeOverResponse(reply, status, { ...headers, connection: "close" }, flush);
  releaseParser(req);
  flattenHead(res);
  forgetHeaderMap(res);
  return res;
}

/**
 * Node keeps the head it wrote, for the response's life, as the string it built it into: a rope
 * of a piece or two per header line, about 600 bytes of heap (docs/subscriptions.md). A response
 * that lives as long as its subscriber keeps one flat copy instead; Node reads it back only to
 * send it, and to know that it was sent. Heads are Latin-1, as Node writes them.
 */
function flattenHead(res: ServerResponse): void {
  const out = res as ServerResponse & { _header?: string | null };
  if (typeof out._header === "string") {
    out._header = Buffer.from(out._header, "latin1").toString("latin1");
  }
}

/** Node's private map of a response's headers (`kOutHeaders`), found on the first response. */
let headerMapKey: symbol | undefined;

/**
 * Node also keeps the headers as a map (name: [name, value]), about 300 bytes more, for
 * getHeader() and the writing of the head. Once the head is written, a response that holds its
 * connection is only written to: the map is dropped, as Node has it before any header is set
 * (getHeader() then finds nothing; headers cannot change any more).
 */
function forgetHeaderMap(res: ServerResponse): void {
  if (typeof (res as { _header?: unknown })._header !== "string") return;
  headerMapKey ??= Object.getOwnPropertySymbols(res).find((s) => s.description === "kOutHeaders");
  if (headerMapKey !== undefined) (res as unknown as Record<symbol, unknown>)[headerMapKey] = null;
}
