// One pass over the catalog after a star starts, a batch of streams each retention interval: the
// registry remembers only the streams it closed idle in this run, so a stream nobody has used
// since a restart would otherwise keep what aged out, its empty self under delete_on_empty, or
// the data of its expiry, until a client touched it. Each stream this star leads whose
// retention or expiry may have work is opened (its trim comes with the open, the rounds do the
// rest, and it is remembered when it closes idle) or, expired, deleted.
import type { Stream__Output } from "../../gen/nova/v1/Stream.ts";
import type { StarContext } from "../context.ts";
import { retains } from "../stream/registry.ts";
import { hasExpired } from "./expiry.ts";
import { deleteExpired, openLedLog } from "./streams.ts";

/** Streams looked at each retention interval: each one this star leads with work is opened. */
const SWEEP_BATCH = 100;
const BUCKETS_PAGE = 1000;

async function* everyStream(ctx: StarContext): AsyncGenerator<Stream__Output> {
  for (let after = ""; ; ) {
    const page = await ctx.catalog.listBuckets("", after, BUCKETS_PAGE);
    for (const bucket of page.items) yield* ctx.catalog.streams(bucket.name, "");
    if (page.next === "") return;
    after = page.next;
  }
}

export class CatalogSweep {
  #listing: AsyncGenerator<Stream__Output> | undefined;
  #done = false;

  get done(): boolean {
    return this.#done;
  }

  /** Looks at the next SWEEP_BATCH streams; a listing that fails starts over next time. */
  async round(ctx: StarContext): Promise<void> {
    if (this.#done) return;
    this.#listing ??= everyStream(ctx);
    try {
      for (let i = 0; i < SWEEP_BATCH; i++) {
        const next = await this.#listing.next();
        if (next.done) {
          this.#done = true;
          return;
        }
        await visit(ctx, next.value).catch((err: unknown) =>
          ctx.log.warn({ err, stream: next.value.stream_id }, "retention sweep: stream skipped"),
        );
      }
    } catch (err) {
      this.#listing = undefined;
      throw err;
    }
  }
}

async function visit(ctx: StarContext, stream: Stream__Output): Promise<void> {
  if (stream.deleted_at_unix_ms !== "0" || !retains(stream)) return;
  if (!ctx.fleet.leads(stream.bucket, stream.key)) return;
  if (hasExpired(stream, ctx.uses, ctx.now(), true)) await deleteExpired(ctx, stream);
  else await openLedLog(ctx, stream);
}
