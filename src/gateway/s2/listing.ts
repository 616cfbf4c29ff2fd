// What S2's list and create routes share: the list query (prefix, start_after, limit clamped
// to 1000) as nova's list request, the idempotency header `s2-request-token` (nova's creation
// token), and the header saying what an ensure did.
import type { FastifyReply, FastifyRequest } from "fastify";
import { MAX_LIST_LIMIT, MAX_STREAM_KEY_BYTES } from "../../contract/wire-limits.ts";
import { creationToken, type Query, queryParam, readExactInt, UINT64 } from "../translate/index.ts";
import { s2Error } from "./errors.ts";

export const REQUEST_TOKEN_HEADER = "s2-request-token";
/** What an ensure (PUT) did: created, updated or noop. */
export const PROVISION_RESULT_HEADER = "s2-provision-result";

const bigMin = (a: bigint, b: bigint) => (a < b ? a : b);

/**
 * S2's rule for a list's `prefix` and `start_after`, as for the names listed but that they may
 * be empty or cut short: a basin's at most 48 bytes of a-z, 0-9 and -, not starting with -; a
 * stream's at most 512 bytes.
 */
const LIST_BOUND: Record<"basin" | "stream", { ok(text: string): boolean; rule: string }> = {
  basin: {
    ok: (text) => /^(?:[a-z0-9][a-z0-9-]{0,47})?$/.test(text),
    rule: "at most 48 of a-z, 0-9 and -, not starting with -",
  },
  stream: {
    ok: (text) => Buffer.byteLength(text) <= MAX_STREAM_KEY_BYTES,
    rule: `at most ${MAX_STREAM_KEY_BYTES} bytes`,
  },
};

export function listPage(
  query: unknown,
  names: "basin" | "stream",
): { prefix: string; start_after: string; limit: number } {
  const q = query as Query;
  const bounded = (field: "prefix" | "start_after") => {
    const text = queryParam(q, field) ?? "";
    const { ok, rule } = LIST_BOUND[names];
    if (!ok(text)) {
      throw s2Error(
        "bad_query",
        `${field}: a ${names} ${field} is ${rule}; got ${JSON.stringify(text)}`,
      );
    }
    return text;
  };
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
    prefix: bounded("prefix"),
    // The reference star's cursor is the last name listed, as S2's start_after is.
    start_after: bounded("start_after"),
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
