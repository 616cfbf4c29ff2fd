// A unary read with `wait`: the first page a subscription brings, within the read's bounds, or
// nothing (with the tail) when `waitMs` passes first. It rides the same source as SSE, so it
// returns as soon as a record commits and survives a star failing over. At the end of a closed
// stream it answers at once, saying so.
import { contentBytes } from "../../contract/codec/index.ts";
import { DEFAULT_RETRY_AFTER_SECONDS, HttpError, unavailable } from "../errors/index.ts";
import type { BatchSource, Cursor, SourceBatch } from "./sources/index.ts";
import { type Bounds, clientGone, cutBatch, ZERO_TALLY } from "./sse/index.ts";

export interface LongPollOptions {
  source: BatchSource;
  cursor: Cursor;
  bounds: Bounds;
  waitMs: number;
  /** Aborts when the client goes away. */
  signal: AbortSignal;
  /** Aborts when the gateway drains: answer now with what there is. */
  drain?: AbortSignal;
}

/**
 * The wait passed before the read's first frame: no star answered in time. A 503, retryable; a
 * face whose protocol has an answer for "nothing yet" (Durable Streams' 204) gives that instead,
 * which it must not give for a failure.
 */
export class WaitPassed extends HttpError {
  constructor(waitMs: number) {
    super(503, "unavailable", `no star answered within ${waitMs} ms`, {
      retryable: true,
      headers: { "retry-after": String(DEFAULT_RETRY_AFTER_SECONDS) },
    });
  }
}

export async function longPoll(opts: LongPollOptions): Promise<SourceBatch> {
  const stop = new AbortController();
  const onAbort = () => stop.abort(opts.signal.reason);
  if (opts.signal.aborted) onAbort();
  opts.signal.addEventListener("abort", onAbort, { once: true });
  const it = opts.source(opts.cursor, stop.signal)[Symbol.asyncIterator]();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<"deadline">((resolve) => {
    timer = setTimeout(() => resolve("deadline"), opts.waitMs);
    opts.drain?.addEventListener("abort", () => resolve("deadline"), { once: true });
  });
  let tail: SourceBatch["tail"] | undefined;
  try {
    return await poll();
  } catch (err) {
    throw opts.signal.aborted ? clientGone() : err;
  } finally {
    clearTimeout(timer);
    opts.signal.removeEventListener("abort", onAbort);
    stop.abort(new Error("the long-poll ended"));
    await it.return?.().catch(() => {});
  }

  async function poll(): Promise<SourceBatch> {
    for (;;) {
      const next = it.next();
      const got = await Promise.race([next, deadline]);
      if (got === "deadline" || got.done) {
        next.catch(() => {});
        if (tail !== undefined) return { records: [], tail };
        if (got === "deadline") throw new WaitPassed(opts.waitMs);
        throw unavailable("the read ended before its first frame; retry");
      }
      tail = got.value.tail;
      const { records, closed } = got.value;
      // A closed stream answers at once: nothing will come.
      if (records.length === 0 && !closed) continue;
      const cut = cutBatch(records, contentBytes, opts.bounds, ZERO_TALLY);
      const all = cut.take === records.length;
      return { records: records.slice(0, cut.take), tail, ...(closed && all ? { closed } : {}) };
    }
  }
}
