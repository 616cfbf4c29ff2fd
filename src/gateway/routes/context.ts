// What every route reads from a request: the record format, the int64 mode, and the caller's
// credentials to forward (Authorization, or ?access_token= on GET reads).
import type { FastifyReply, FastifyRequest } from "fastify";
import { badQuery } from "../errors/index.ts";
import { clientAbortSignal } from "../http/index.ts";
import {
  checkBucketName,
  checkStreamKey,
  FORMAT_HEADER,
  type Int64Mode,
  parseInt64Mode,
  type Query,
  queryParam,
  type RecordFormat,
  resolveFormat,
} from "../translate/index.ts";
import type { CallOptions } from "../upstream/index.ts";

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
  if (token !== undefined) {
    // RFC 6750 §2: one request carries its token one way.
    if (header !== undefined) {
      throw badQuery("access_token", "give the token in Authorization or access_token, not both");
    }
    if (token === "") throw badQuery("access_token", "must not be empty");
  }
  const authorization = header ?? (token === undefined ? undefined : `Bearer ${token}`);
  return {
    int64: parseInt64Mode(query),
    call: { authorization, signal: clientAbortSignal(reply) },
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
