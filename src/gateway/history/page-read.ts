// The Read a page asks the star for what object storage does not serve it: from a start, with
// what is left of the page's record and byte budgets, the page's clamp and time bound, its time
// counted as the star's.
import type { ReadResponse__Output } from "../../gen/nova/v1/ReadResponse.ts";
import type { CallOptions, Upstream } from "../upstream/index.ts";
import type { PlanStart } from "./plan-source.ts";
import { type Timings, timed } from "./timings.ts";

/** A Read from `start` of at most `count` records and `bytes` content bytes (0: no limit). */
export type StarRead = (
  start: PlanStart,
  count: number,
  bytes: number,
) => Promise<ReadResponse__Output>;

export interface PageReadOptions {
  upstream: Pick<Upstream, "unary">;
  address: { bucket: string; key: string };
  call: CallOptions;
  clamp: boolean;
  /** The page's time bound, as the Read's `until_ms`. */
  untilMs: bigint | undefined;
  timings: Timings;
}

export function pageRead(o: PageReadOptions): StarRead {
  const route = { ...o.call, ...o.address };
  const until = o.untilMs === undefined ? {} : { until_ms: o.untilMs.toString() };
  return (start, count, bytes) =>
    timed(o.timings, "starMs", () =>
      o.upstream.unary(
        "Read",
        { ...o.address, ...start, count, bytes: bytes.toString(), clamp: o.clamp, ...until },
        route,
      ),
    );
}
