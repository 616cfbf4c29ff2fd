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

/**
 * The trim point a Read's answer shows, if it shows one: a star's records run unbroken from its
 * trim point, so a first record past the seq_num the Read was asked from is it (every record
 * below is gone).
 */
export function trimPointShown(asked: PlanStart, res: ReadResponse__Output): bigint | undefined {
  const first = res.records[0];
  if (!("seq_num" in asked) || first === undefined) return undefined;
  const seq = BigInt(first.seq_num);
  return seq > BigInt(asked.seq_num) ? seq : undefined;
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
