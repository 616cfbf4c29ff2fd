// What an SSE session (or a long-poll) reads from: an async source of batches from a cursor.
// Today it is the fleet's Subscribe with failover (fleet-source.ts); a catch-up phase that reads
// settled history from object storage can be put in front of it without touching the readers,
// as long as it keeps the contract below.
import type { Position__Output } from "../../../gen/nova/v1/Position.ts";
import type { Record__Output } from "../../../gen/nova/v1/Record.ts";
import type { Int64Mode, ReadStart, RecordFormat } from "../../translate/index.ts";

/** Where reading starts: a seq_num, a timestamp, an offset back from the tail, or the tail. */
export interface Cursor {
  start: ReadStart;
  /** A start beyond the tail reads from the tail instead of failing with 416. */
  clamp: boolean;
}

/**
 * One batch. Records are consecutive and the first one is the cursor's (or the first after it,
 * past a trim); batches follow one another with no gap and no overlap. A batch without records
 * means the source has caught up to the tail; `tail` is the stream's tail as last known.
 */
export interface SourceBatch {
  records: Record__Output[];
  tail: Position__Output | null;
  /** A live hub's batch, the same object for every subscriber: its JSON is made once. */
  shared?: SharedEvent;
  /** The stream is closed and this batch reaches its tail: the source ends after it. */
  closed?: boolean;
  /** The stream's trim point, where the star's frame told it: records below it are gone. */
  trimPoint?: bigint;
}

/** A live batch's SSE event, made once per mode for all its readers (a hub makes it). */
export interface SharedEvent {
  /** The event's bytes after its per-reader head, or undefined when they cannot be shared. */
  rest(
    records: readonly Record__Output[],
    tail: Position__Output | null,
    format: RecordFormat,
    int64: Int64Mode,
  ): Uint8Array | undefined;
}

/**
 * A consumer that takes batches in the producer's turn, with no await: given every batch from
 * where it waits, in order, it answers how many it took from the first (delivered as if the
 * iterator had yielded them); the rest are yielded as usual. Several at once when it was behind:
 * it can deliver them together. Called synchronously, only while the consumer waits on the
 * iterator's next batch; one that throws took none. An object rather than a function: a
 * consumer can be its own tap, with no closure for each of thousands.
 */
export interface BatchTap {
  deliver(batches: readonly SourceBatch[]): number;
}

/** Where a read's result goes when it is handed over rather than promised (SinkIterator). */
export interface ReadSink<R = IteratorResult<SourceBatch>> {
  resolved(result: R): void;
  rejected(err: unknown): void;
}

/**
 * An iterator that can also hand its next result to a sink, at once or when it comes: a reader
 * that waits on it holds no promise (a hub's follower waits at the head for a subscriber's life).
 */
export interface SinkIterator<R = IteratorResult<SourceBatch>> {
  nextTo(sink: ReadSink<R>): void;
}

export function isSinkIterator(it: object): it is SinkIterator {
  return typeof (it as Partial<SinkIterator>).nextTo === "function";
}

/**
 * Batches from `cursor` on, until the consumer stops or `signal` aborts (which must release any
 * upstream call at once). Errors are thrown as the fleet's errors or HttpErrors. A source with
 * a live fan-out (a hub) may hand batches to `tap` instead of yielding them; others ignore it.
 */
export type BatchSource = (
  cursor: Cursor,
  signal: AbortSignal,
  tap?: BatchTap,
) => AsyncIterable<SourceBatch>;
