// What a member serves of a stream whose leader does not answer (docs/fleet.md): everything
// the leader acknowledged is in storage, settled into chunks or in its log objects. The log is
// read first, under the one damage rule (ctx.logs): a leader that restarts meanwhile settles and
// deletes it, leaving chunks the listing after it finds, and the log's records continue from
// wherever those end. Where the stream's entries stop at a gap, a read that reaches it fails.
import { status } from "@grpc/grpc-js";
import type { DecodedChunkRecord } from "../../contract/codec/index.ts";
import type { StarContext } from "../context.ts";
import { StarError } from "../errors.ts";
import type { Member } from "../fleet/members.ts";
import { type Extent, type ReadBounds, readPage, seqForTimestamp } from "../stream/chunk-reads.ts";
import { type FollowerView, withRetry } from "../stream/follower-view.ts";
import type { Pos } from "../stream/stream-log.ts";
import { continueFrom } from "../wal/log-continuation.ts";

/**
 * The leader did not answer (down, restarting, too slow): storage has its records. A leader that
 * answered UNAVAILABLE itself is up and may still void a log object it saw fail and reuse its
 * seq_nums, or not lead what its log holds (a member taking its streams back): its answer stands.
 */
export function leaderUnreachable(err: unknown): boolean {
  return (
    err instanceof StarError &&
    !err.answered &&
    (err.code === status.UNAVAILABLE || err.code === status.DEADLINE_EXCEEDED)
  );
}

export class StoppedLeaderLog {
  /** The settled chunks, then the records the leader's log holds past them. */
  readonly extent: Extent;
  /** One past the last record storage holds, and its timestamp. */
  readonly tail: Pos;
  readonly #ctx: StarContext;
  readonly #leader: Member;
  readonly #view: FollowerView;
  /** Where the stream's entries stop while later ones go on. */
  readonly #gapAt: bigint | undefined;

  private constructor(
    ctx: StarContext,
    leader: Member,
    view: FollowerView,
    extent: Extent,
    tail: Pos,
    gapAt: bigint | undefined,
  ) {
    this.#ctx = ctx;
    this.#leader = leader;
    this.#view = view;
    this.extent = extent;
    this.tail = tail;
    this.#gapAt = gapAt;
  }

  /** Reads the leader's log, then lists the chunks again. UNAVAILABLE when the log is damaged. */
  static async read(ctx: StarContext, leader: Member, view: FollowerView) {
    const entries = await ctx.logs.streamEntries(leader.name, view.streamId);
    await view.refreshFromNow();
    const settled = await view.extent();
    const { records: unsettled, gapAt } = continueFrom(entries, settled.tail);
    const last = unsettled.at(-1);
    const tail: Pos = last
      ? { seqNum: last.seqNum + 1n, timestampMs: last.timestampMs }
      : view.listedEnd;
    // Less than the leader said it acknowledged: those records are elsewhere (the log of the
    // member that led before a hand-back), not missing; an answer from here would be short.
    if (tail.seqNum < view.knownTail.seqNum) {
      throw new StarError(
        status.UNAVAILABLE,
        `star ${leader.name} does not answer and storage holds the stream only to ${tail.seqNum}, below the tail ${view.knownTail.seqNum} it acknowledged; retry`,
      );
    }
    const extent = { ...settled, tail: tail.seqNum, unsettled };
    return new StoppedLeaderLog(ctx, leader, view, extent, tail, gapAt);
  }

  get trimPoint(): bigint {
    return this.extent.trim;
  }

  seqForTimestamp(ts: bigint): Promise<bigint> {
    return this.#onStorage((e) => seqForTimestamp(this.#ctx.chunks, e, ts));
  }

  /** One page from `from` (raised to the trim point). */
  page(from: bigint, bounds: ReadBounds): Promise<DecodedChunkRecord[]> {
    return this.#onStorage((e) => readPage(this.#ctx.chunks, e, from, bounds));
  }

  /** Runs `look` on the chunks as listed (again, after a reclaim) with the log's records on top. */
  #onStorage<T>(look: (extent: Extent) => Promise<T>): Promise<T> {
    const { tail, unsettled } = this.extent;
    return withRetry(this.#view, this.extent, (e) => look({ ...e, tail, unsettled }));
  }

  /**
   * A read got to `next` (one past its last record, or its start): when that is the end of what
   * storage holds and the stream's entries stop at a gap there, the read fails UNAVAILABLE
   * naming it, since the records after it are acked but cannot be placed.
   */
  reached(next: bigint): void {
    if (this.#gapAt !== undefined && next >= this.extent.tail) {
      throw this.#ctx.logs.gap(this.#leader.name, this.#view.streamId, this.#gapAt);
    }
  }
}
