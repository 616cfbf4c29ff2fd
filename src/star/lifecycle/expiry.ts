// Streams that expire (docs/durable-streams.md, "Expiry"): at a fixed instant
// (expires_at_unix_ms), or once no read or append has reached the stream's leader for
// expire_idle_ms. Past it, a stream is NOT_FOUND to every verb, and its leader deletes it the
// first time a verb or its retention round (retention-round.ts, catalog-sweep.ts) finds it so. Uses are counted in the leader's memory only: after a restart
// or a leader move the idle clock starts again from the new leader's first sight of the stream,
// so a stream can outlive its idle window by that much but never expires early. Past USES_KEPT
// streams in use, one forgotten counts from the last use of the one forgotten most recently: on
// a star with more than that, a forgotten stream's expiry comes later than its window, not early.
import type { Stream__Output } from "../../gen/nova/v1/Stream.ts";

/** Streams whose last use is remembered; past it the least recently used are forgotten. */
export const USES_KEPT = 100_000;

/** The last read or append of each idle-expiring stream this star leads. */
export class StreamUses {
  readonly #last = new Map<string, number>();
  readonly #since: number;
  readonly #kept: number;
  /**
   * The last use of the stream forgotten most recently: the least recent of those remembered
   * then, so every forgotten stream was last used at or before it.
   */
  #forgottenThrough = 0;

  /** `since`: when this star began counting (a forgotten stream counts from here). */
  constructor(since: number, kept = USES_KEPT) {
    this.#since = since;
    this.#kept = kept;
  }

  touch(stream: Stream__Output, nowMs: number): void {
    if (stream.expire_idle_ms === "0") return;
    this.#last.delete(stream.stream_id);
    this.#last.set(stream.stream_id, nowMs);
    if (this.#last.size > this.#kept) {
      const [oldest, at] = this.#last.entries().next().value as [string, number];
      this.#last.delete(oldest);
      if (at > this.#forgottenThrough) this.#forgottenThrough = at;
    }
  }

  /**
   * The last use: a remembered one, else the latest of creation, this star's start and the last
   * use of the stream forgotten most recently (never earlier than the stream's own).
   */
  lastUse(stream: Stream__Output): number {
    return (
      this.#last.get(stream.stream_id) ??
      Math.max(Number(stream.created_at_unix_ms), this.#since, this.#forgottenThrough)
    );
  }

  forget(streamId: string): void {
    this.#last.delete(streamId);
  }

  get size(): number {
    return this.#last.size;
  }
}

/**
 * Whether the stream has expired at `nowMs`. The idle window is judged only where its uses are
 * counted (`leads`); elsewhere only the fixed instant is.
 */
export function hasExpired(
  stream: Stream__Output,
  uses: StreamUses,
  nowMs: number,
  leads: boolean,
): boolean {
  // Only the leader counts uses: elsewhere the idle window never ends.
  const due = expiryDueMs(stream, leads ? uses.lastUse(stream) : Number.POSITIVE_INFINITY);
  return due !== undefined && nowMs >= due;
}

/**
 * When the stream expires if nothing uses it after `lastUseMs`: its fixed instant, or the end of
 * its idle window, whichever comes first; undefined when it never expires.
 */
export function expiryDueMs(stream: Stream__Output, lastUseMs: number): number | undefined {
  const at = Number(stream.expires_at_unix_ms);
  const idle = Number(stream.expire_idle_ms);
  const idleEnd = idle === 0 ? undefined : lastUseMs + idle;
  if (at === 0) return idleEnd;
  return idleEnd === undefined || at < idleEnd ? at : idleEnd;
}
