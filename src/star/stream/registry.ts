// The streams this star holds open, one StreamLog per stream_id, opened (recovered) once, and
// closed again once idle, so a star's memory follows the streams in use, not all it ever served.
// Their number is bounded too (--max-open-streams): a client appending to new streams faster
// than the idle close (10 minutes) would otherwise open one log each, a few KiB apiece. At the
// bound an open first closes the logs quiet the longest, as the idle close would; when none is
// quiet (each has records to settle, a reader, a session) the open is RESOURCE_EXHAUSTED, retryable.
import type { Stream__Output } from "../../gen/nova/v1/Stream.ts";
import { resourceExhausted, type StarError, unavailable } from "../errors.ts";
import type { Catalog } from "../storage/catalog.ts";
import type { ChunkStore } from "../storage/chunk-store.ts";
import { SYSTEM_CLOCK } from "./clock.ts";
import { StreamLog, type StreamLogOptions } from "./stream-log.ts";

/**
 * Whether the retention round may have work on a stream without an append or a read: age,
 * empty, or expiry.
 */
export function retains(d: Stream__Output): boolean {
  return (
    d.retention_max_age_ms !== "0" ||
    d.delete_on_empty_min_age_ms !== "0" ||
    d.expires_at_unix_ms !== "0" ||
    d.expire_idle_ms !== "0"
  );
}

/** At the bound, an open closes this share of the bound's quiet logs at once (at least one). */
const ROOM_SHARE = 0.01;

export interface RegistryOptions extends StreamLogOptions {
  /** Logs open at once (--max-open-streams). */
  maxOpen: number;
}

/** Deleted streams remembered, for calls in flight when they were deleted. */
const DELETED_REMEMBERED = 4096;

/** A stream closed idle whose retention has work later: opened again then, for the round. */
interface Dormant {
  descriptor: Stream__Output;
  dueMs: bigint;
}

export class StreamRegistry {
  readonly #catalog: Catalog;
  readonly #chunks: ChunkStore;
  readonly #options: RegistryOptions;
  readonly #logs = new Map<string, Promise<StreamLog>>();
  /** The logs that opened, for figures read without waiting. */
  readonly #opened = new Map<string, StreamLog>();
  readonly #replayed: () => Promise<void>;
  /** Closes under way: a stream opened again meanwhile opens once its close has ended. */
  readonly #closing = new Map<string, Promise<void>>();
  readonly #dormant = new Map<string, Dormant>();
  /** Logs closed idle: a caller that meets one opens the stream again. */
  readonly #idleClosed = new WeakSet<StreamLog>();
  #closedIdle = 0;
  /**
   * Streams deleted here lately, with the error a call meets: one that resolved the descriptor
   * before the delete must not open the log again and append to a deleted stream. Bounded (the
   * race is a call in flight); stream ids are never reused.
   */
  readonly #deleted = new Map<string, StarError>();

  /** `replayed`: resolves once the star's log from its last run is settled (retried on failure). */
  constructor(
    catalog: Catalog,
    chunks: ChunkStore,
    options: RegistryOptions,
    replayed: () => Promise<void>,
  ) {
    this.#catalog = catalog;
    this.#chunks = chunks;
    this.#options = options;
    this.#replayed = replayed;
  }

  /** Resolves once the star's log from its last run is settled into chunks. */
  replayed(): Promise<void> {
    return this.#replayed();
  }

  /** Opens a stream this star leads, once its log is replayed (so its chunks hold every ack). */
  open(descriptor: Stream__Output): Promise<StreamLog> {
    const deleted = this.#deleted.get(descriptor.stream_id);
    if (deleted) return Promise.reject(deleted);
    this.#opened.get(descriptor.stream_id)?.markUsed();
    let log = this.#logs.get(descriptor.stream_id);
    if (!log) {
      if (this.#logs.size >= this.#options.maxOpen) {
        try {
          this.#makeRoom();
        } catch (err) {
          return Promise.reject(err);
        }
      }
      // A close under way ends first: its log's entries are forgotten only then.
      const closing = this.#closing.get(descriptor.stream_id);
      log = Promise.all([this.#replayed(), closing]).then(() =>
        StreamLog.open(descriptor, this.#catalog, this.#chunks, this.#options),
      );
      this.#logs.set(descriptor.stream_id, log);
      const id = descriptor.stream_id;
      log.then(
        (opened) => {
          // Remembered as due until it is open: one that fails to open is due again next round.
          if (this.#logs.get(id) === log) {
            this.#opened.set(id, opened);
            this.#dormant.delete(id);
          }
        },
        () => {
          // A step-down (dropAll) and an open since may have put another log in its place.
          if (this.#logs.get(id) === log) this.#logs.delete(id);
        },
      );
    }
    return log;
  }

  /**
   * Opens a stream's log held open until `release` (StreamLog.hold): nothing closes it idle
   * while a call uses it. One closed idle before the hold is opened again.
   */
  async hold(descriptor: Stream__Output): Promise<{ log: StreamLog; release: () => void }> {
    for (;;) {
      const log = await this.open(descriptor);
      if (!this.#idleClosed.has(log)) return { log, release: log.hold() };
    }
  }

  /** The open log of a stream, if this star has opened it. */
  async peek(streamId: string): Promise<StreamLog | undefined> {
    return this.#logs.get(streamId)?.catch(() => undefined);
  }

  /**
   * Ends a deleted stream's life here: its log entries need no settling any more. Resolves once
   * what the log had under way (a commit, a settle, a state write) has ended.
   */
  async close(streamId: string, reason?: StarError): Promise<void> {
    this.#dormant.delete(streamId);
    const entry = this.#logs.get(streamId);
    const log = await entry?.catch(() => undefined);
    const current = this.#logs.get(streamId);
    if (current !== undefined && current !== entry) {
      // Another open replaced it meanwhile (after a step-down): the stream's log objects and
      // chunks are the new log's, and only the old log closes.
      log?.close(reason);
      await log?.stopped();
      return;
    }
    return this.#end(streamId, log, reason);
  }

  /** As close, for a stream deleted for good: its log is never opened here again. */
  deleted(streamId: string, reason: StarError): Promise<void> {
    this.#deleted.set(streamId, reason);
    if (this.#deleted.size > DELETED_REMEMBERED) {
      this.#deleted.delete(this.#deleted.keys().next().value as string);
    }
    return this.close(streamId, reason);
  }

  async #end(streamId: string, log: StreamLog | undefined, reason?: StarError): Promise<void> {
    // A close of the same log under way (its entry already gone) is waited for below, in order.
    this.#logs.delete(streamId);
    this.#opened.delete(streamId);
    log?.close(reason);
    const done = (async () => {
      await this.#closing.get(streamId);
      await log?.stopped();
      this.#options.wal.forget(streamId);
      this.#chunks.forget(streamId);
    })();
    this.#closing.set(streamId, done);
    try {
      await done;
    } finally {
      if (this.#closing.get(streamId) === done) this.#closing.delete(streamId);
    }
  }

  /**
   * Closes the logs quiet (StreamLog.quietSince) for `idleMs` or longer; one whose retention has
   * work later is remembered until then (dueStreams). Resolves once they have closed.
   */
  async closeIdle(idleMs: number): Promise<void> {
    const now = (this.#options.clock ?? SYSTEM_CLOCK).now();
    const ending: Promise<void>[] = [];
    for (const [id, log] of this.#opened) {
      const since = log.quietSince();
      if (since === undefined || now - since < idleMs) continue;
      ending.push(this.#closeQuiet(id, log, "was closed idle here"));
    }
    await Promise.all(ending);
  }

  /** Closes a quiet log, idle or to make room: it opens again from storage on its next use. */
  #closeQuiet(id: string, log: StreamLog, why: string): Promise<void> {
    const dueMs = log.retentionDueMs();
    if (dueMs !== undefined) this.#dormant.set(id, { descriptor: log.descriptor, dueMs });
    this.#closedIdle++;
    this.#idleClosed.add(log);
    const { bucket, key } = log.descriptor;
    const reason = unavailable(
      `stream ${JSON.stringify(key)} in bucket ${JSON.stringify(bucket)} ${why}; retry`,
    );
    return this.#end(id, log, reason);
  }

  /**
   * At the bound: closes the logs quiet the longest (a share of the bound at once, so a run of
   * new streams does not scan them all for each), or refuses when none is quiet.
   */
  #makeRoom(): void {
    const quiet: { id: string; log: StreamLog; since: number }[] = [];
    for (const [id, log] of this.#opened) {
      const since = log.quietSince();
      if (since !== undefined) quiet.push({ id, log, since });
    }
    if (quiet.length === 0) {
      throw resourceExhausted(
        `this star has ${this.#logs.size} streams open (at most ${this.#options.maxOpen}, --max-open-streams), none of them quiet; retry shortly`,
      );
    }
    quiet.sort((a, b) => a.since - b.since);
    const count = Math.max(1, Math.floor(this.#options.maxOpen * ROOM_SHARE));
    for (const { id, log } of quiet.slice(0, count)) {
      // Its end is the idle close's: failures are the log's own, met by its next open.
      this.#closeQuiet(id, log, "was closed here to make room (--max-open-streams)").catch(
        () => undefined,
      );
    }
  }

  /** The streams closed idle whose retention is due by `nowMs`: opening one forgets it here. */
  dueStreams(nowMs: bigint): Stream__Output[] {
    const due: Stream__Output[] = [];
    for (const dormant of this.#dormant.values()) {
      if (dormant.dueMs <= nowMs) due.push(dormant.descriptor);
    }
    return due;
  }

  /** A stream closed idle that is not this star's to open any more (deleted, or moved). */
  forgetDormant(streamId: string): void {
    this.#dormant.delete(streamId);
  }

  /**
   * A stream's new descriptor: its open log takes it; one not open here opens with it when its
   * retention may have work (its due time follows from the new config), whether it was
   * remembered for its old retention or had none.
   */
  async reconfigured(next: Stream__Output): Promise<void> {
    const log = await this.peek(next.stream_id);
    if (log) log.descriptor = next;
    else if (this.#dormant.has(next.stream_id) || retains(next)) await this.open(next);
  }

  /**
   * A new stream whose retention or expiry may have work (delete_on_empty of one never used, a
   * TTL, an expires-at): due at once,
   * so the next retention round opens it. The create neither waits for that open nor fails by it.
   */
  created(stream: Stream__Output): void {
    if (retains(stream)) this.#dormant.set(stream.stream_id, { descriptor: stream, dueMs: 0n });
  }

  /** Open logs, streams closed idle and waiting for their retention, and quiet closes so far. */
  get counts(): { open: number; dormant: number; closedIdle: number } {
    return { open: this.#logs.size, dormant: this.#dormant.size, closedIdle: this.#closedIdle };
  }

  /** The memory records acked and not yet settled hold, over every open log. */
  get unsettledMemory(): number {
    let bytes = 0;
    for (const log of this.#opened.values()) bytes += log.unsettled.memory;
    return bytes;
  }

  async openLogs(): Promise<StreamLog[]> {
    const settled = await Promise.allSettled(this.#logs.values());
    return settled.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
  }

  /** Closes every open log; its unsettled records stay in the log objects, for a replay. */
  async dropAll(reason: StarError): Promise<void> {
    // Taken before the maps are cleared: openLogs reads them at once.
    const logs = this.openLogs();
    this.#logs.clear();
    this.#opened.clear();
    this.#dormant.clear();
    for (const log of await logs) log.close(reason);
  }

  /** Shutdown: unsettled records stay in the log objects, replayed at the next start. */
  async closeAll(reason: StarError): Promise<void> {
    await this.dropAll(reason);
    this.#options.wal.close();
  }
}
