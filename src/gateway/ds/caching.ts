// The protocol's caching rules for reads (docs/caching.md, "Durable Streams"): a page with data
// is cacheable (an offset's data never changes; the next request asks for the next offset), for
// --cache-max-age-s with stale-while-revalidate, `private` when the request carried a
// credential; a page from the start (`offset=-1`), which a trim or a stream made again at the
// same path changes, is revalidated on every use (`no-cache`, its ETag answering 304); an empty
// page at the tail, any answer at `offset=now`, a long-poll's 204 and HEAD are no-store.
// The ETag names the stream (its id: a stream created again at the same path is another), the
// range asked for and the one served (a page from the start begins where a trim left it, so a
// trim changes it), and whether the stream was closed at its end, so closing changes it. It is
// weak: the gzip and the plain copy of a page share it, as they share their meaning.
import { pageCacheControl } from "../http/index.ts";
import { offsetOf } from "./offsets.ts";
import type { DsPage } from "./service.ts";

const STALE_WHILE_REVALIDATE_S = 300;

export function cacheHeaders(
  maxAgeS: number,
  credential: boolean,
  fromStart = false,
): Record<string, string> {
  const control = pageCacheControl(true, credential, maxAgeS);
  if (fromStart && control !== "no-store") {
    return { "cache-control": `${credential ? "private" : "public"}, no-cache` };
  }
  return {
    "cache-control":
      control === "no-store"
        ? control
        : `${control}, stale-while-revalidate=${STALE_WHILE_REVALIDATE_S}`,
  };
}

export function etagOf(streamId: string, start: string, page: DsPage): string {
  const first = page.records[0];
  const served = first === undefined ? "" : `${offsetOf(BigInt(first.seq_num))}:`;
  return `W/"${streamId}:${start}:${served}${offsetOf(page.next)}${page.closed ? ":c" : ""}"`;
}
