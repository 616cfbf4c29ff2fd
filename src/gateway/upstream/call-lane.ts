// Which of a star's connections a unary call takes (channel-pool.ts): a large Append goes on
// the bulk lane, so that the small calls beside it never wait behind its bytes in one
// connection's flow-control window.
import type { RequestOf, UnaryMethod } from "../../contract/proto/index.ts";
import type { Lane } from "./channel-pool.ts";

/** An Append of at least this many record bytes (bodies and headers) goes on the bulk lane. */
export const BULK_APPEND_BYTES = 64 * 1024;

export function laneOf(method: UnaryMethod, request: unknown): Lane {
  if (method !== "Append") return "calls";
  let bytes = 0;
  for (const r of (request as RequestOf<"Append">).records ?? []) {
    bytes += r.body?.length ?? 0;
    for (const h of r.headers ?? []) bytes += (h.name?.length ?? 0) + (h.value?.length ?? 0);
    if (bytes >= BULK_APPEND_BYTES) return "bulk";
  }
  return "calls";
}
