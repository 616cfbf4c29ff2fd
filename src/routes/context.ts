// What every route reads from a request: the record format, the int64 mode, and the caller's
// credentials to forward (Authorization, or ?access_token= on GET reads).
import type { FastifyReply, FastifyRequest } from "fastify";
import type { CallOptions } from "../gateway/upstream.ts";
import { FORMAT_HEADER, type RecordFormat, resolveFormat } from "../translate/format.ts";
import { type Int64Mode, parseInt64Mode } from "../translate/integers.ts";
import { checkBucketName, checkStreamKey } from "../translate/names.ts";
import { type Query, queryParam } from "../translate/query-params.ts";

export interface RequestContext {
  int64: Int64Mode;
  call: CallOptions;
}

export function requestContext(
  req: FastifyRequest,
  reply: FastifyReply,
  allowQueryToken = false,
): RequestContext {
  const query = req.query as Query;
  const header = req.headers.authorization;
  const token = allowQueryToken ? queryParam(query, "access_token") : undefined;
  const authorization = header ?? (token === undefined ? undefined : `Bearer ${token}`);
  // A response closed before it finished means the client went away: cancel upstream.
  const abort = new AbortController();
  reply.raw.once("close", () => {
    if (!reply.raw.writableFinished) abort.abort();
  });
  return {
    int64: parseInt64Mode(query),
    call: { authorization, signal: abort.signal },
  };
}

export function recordFormat(req: FastifyRequest): RecordFormat {
  return resolveFormat(req.query as Query, req.headers[FORMAT_HEADER]);
}

/** The bucket (and key) of a stream route's path, checked before any star is asked. */
export function streamAddress(req: FastifyRequest): { bucket: string; key: string } {
  const params = req.params as { bucket: string; key: string };
  return { bucket: checkBucketName(params.bucket), key: checkStreamKey(params.key) };
}
