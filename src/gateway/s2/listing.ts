// What S2's list and create routes share: the list query (prefix, start_after, limit clamped
// to 1000) as nova's list request, the idempotency header `s2-request-token` (nova's creation
// token), and the header saying what an ensure did.
import type { FastifyReply, FastifyRequest } from "fastify";
import { MAX_LIST_LIMIT } from "../../contract/wire-limits.ts";
import { creationToken, type Query, queryParam, readExactInt, UINT64 } from "../translate/index.ts";
import { s2Error } from "./errors.ts";

export const REQUEST_TOKEN_HEADER = "s2-request-token";
/** What an ensure (PUT) did: created, updated or noop. */
export const PROVISION_RESULT_HEADER = "s2-provision-result";

const bigMin = (a: bigint, b: bigint) => (a < b ? a : b);

export function listPage(query: unknown): { prefix: string; start_after: string; limit: number } {
  const q = query as Query;
  const limitText = queryParam(q, "limit");
  // S2 clamps a larger limit to 1000 rather than refusing it.
  const limit =
    limitText === undefined
      ? MAX_LIST_LIMIT
      : Number(
          bigMin(
            readExactInt(limitText, UINT64, "limit", (field, reason) =>
              s2Error("bad_query", `${field}: ${reason}`),
            ),
            BigInt(MAX_LIST_LIMIT),
          ),
        );
  return {
    prefix: queryParam(q, "prefix") ?? "",
    // The reference star's cursor is the last name listed, as S2's start_after is.
    start_after: queryParam(q, "start_after") ?? "",
    limit,
  };
}

/** The creation token, `s2-request-token`: its UTF-8 text, "" without one. */
export function requestToken(req: FastifyRequest): string {
  return creationToken(req.headers, req.raw.rawHeaders, REQUEST_TOKEN_HEADER);
}

/** An ensure's answer: 201 when created, else 200, saying which in s2-provision-result. */
export function sendProvisioned(
  reply: FastifyReply,
  result: "created" | "updated" | "noop",
  body: unknown,
): FastifyReply {
  return reply
    .code(result === "created" ? 201 : 200)
    .header(PROVISION_RESULT_HEADER, result)
    .send(body);
}
