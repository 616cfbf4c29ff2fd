// The streams this star holds open, one StreamLog per stream_id, opened (recovered) once.
import type { Stream__Output } from "../../gen/nova/v1/Stream.ts";
import type { StarError } from "../errors.ts";
import type { Catalog } from "../storage/catalog.ts";
import type { ChunkStore } from "../storage/chunk-store.ts";
import { StreamLog, type StreamLogOptions } from "./stream-log.ts";

export class StreamRegistry {
  readonly #catalog: Catalog;
  readonly #chunks: ChunkStore;
  readonly #options: StreamLogOptions;
  readonly #logs = new Map<string, Promise<StreamLog>>();
  /** The logs that opened, for figures read without waiting. */
  readonly #opened = new Map<string, StreamLog>();
  readonly #replayed: () => Promise<void>;
  /** Closes under way: a stream opened again meanwhile opens once its close has ended. */
  readonly #closing = new Map<string, Promise<void>>();

  /** `replayed`: resolves once the star's log from its last run is settled (retried on failure). */
  constructor(
    catalog: Catalog,
    chunks: ChunkStore,
    options: StreamLogOptions,
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
    let log = this.#logs.get(descriptor.stream_id);
    if (!log) {
      // A close under way ends first: its log's entries are forgotten only then.
      const closing = this.#closing.get(descriptor.stream_id);
      log = Promise.all([this.#replayed(), closing]).then(() =>
        StreamLog.open(descriptor, this.#catalog, this.#chunks, this.#options),
      );
      this.#logs.set(descriptor.stream_id, log);
      const id = descriptor.stream_id;
      log.then(
        (opened) => {
          if (this.#logs.get(id) === log) this.#opened.set(id, opened);
        },
        () => this.#logs.delete(id),
      );
    }
    return log;
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
    const log = await this.peek(streamId);
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

  /** Content bytes acked and not yet settled, over every open log: the memory they hold. */
  get unsettledBytes(): number {
    let bytes = 0;
    for (const log of this.#opened.values()) bytes += log.unsettled.bytes;
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
    for (const log of await logs) log.close(reason);
  }

  /** Shutdown: unsettled records stay in the log objects, replayed at the next start. */
  async closeAll(reason: StarError): Promise<void> {
    await this.dropAll(reason);
    this.#options.wal.close();
  }
}
