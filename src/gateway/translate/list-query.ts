// ListBuckets / ListStreams query: prefix, start_after (an opaque cursor) and limit.
import { MAX_LIST_LIMIT } from "../../contract/wire-limits.ts";
import { badQuery } from "../errors/index.ts";
import { asWellFormed } from "./fields.ts";
import { readExactInt, UINT64 } from "./integers.ts";
import { type Query, queryParam } from "./query-params.ts";

export interface ListFields {
  prefix: string;
  start_after: string;
  /** 0 lets the star choose its default page. */
  limit: number;
}

/** Larger limits are clamped to 1000 rather than refused. */
export function listQueryFromQuery(query: Query): ListFields {
  const text = (name: string) => asWellFormed(queryParam(query, name) ?? "", name, badQuery);
  const limit = queryParam(query, "limit");
  const n = limit === undefined ? 0n : readExactInt(limit, UINT64, "limit", badQuery);
  return {
    prefix: text("prefix"),
    start_after: text("start_after"),
    limit: Number(n > BigInt(MAX_LIST_LIMIT) ? BigInt(MAX_LIST_LIMIT) : n),
  };
}
