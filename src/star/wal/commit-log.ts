// The star-wide write-ahead log on object storage (docs/storage-layout.md, "Log objects"): the
// batches every stream this star leads commits within one commit interval go into one log
// object, PUT once; each stream's commit resolves only after that PUT succeeded, so object-store
// writes follow the interval, not the number of streams. A few PUTs may be in flight at once, so
// one slow PUT does not hold the next interval's commits; a stream is never in two of them (its
// log flushes one commit at a time), so its entries stay in log order, and what waits here is
// bounded by the streams led times their batch limit. A log object is deleted once every
// stream in it has settled its records into chunk objects (or was deleted).
import { encodeLogObject, type LogEntry } from "../../contract/codec/index.ts";
import type { ObjectStore } from "../../platform/objstore/index.ts";
import { unavailable } from "../errors.ts";
import { logKey } from "../storage/keys.ts";

export interface CommitLogOptions {
  /** The least time between the starts of two log PUTs. */
  commitIntervalMs: number;
  /** Entries taken into one log object, by their records' stored bytes; at least one. */
  maxObjectBytes: number;
  /** Log PUTs in flight at once. */
  maxPutsInFlight: number;
}

interface Waiting {
  entry: LogEntry;
  bytes: number;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** A log object in storage and, per stream, the seq_num its entry ends at, until settled. */
interface Outstanding {
  key: string;
  ends: Map<string, bigint>;
}

export class CommitLog {
  readonly #store: ObjectStore;
  readonly #starId: string;
  readonly #options: CommitLogOptions;
  /** Set by `begin` once replay has found the numbers in storage. */
  #next: bigint | undefined;
  #waiting: Waiting[] = [];
  #waitingBytes = 0;
  #inFlight = 0;
  #timer: NodeJS.Timeout | undefined;
  #lastPutAt = Number.NEGATIVE_INFINITY;
  /** Log objects whose PUT failed (it may still have landed): deleted before the next PUT. */
  #abandoned: string[] = [];
  readonly #byStream = new Map<string, Set<Outstanding>>();
  #outstanding = 0;
  #deletable: string[] = [];
  #deleting: Promise<void> | undefined;
  #closed = false;
  /** Log objects written since the start. */
  puts = 0;

  constructor(store: ObjectStore, starId: string, options: CommitLogOptions) {
    this.#store = store;
    this.#starId = starId;
    this.#options = options;
  }

  /** `next`: the number of the first log object to write, above every one in storage. */
  begin(next: bigint): void {
    this.#next = next;
  }

  /** Log objects in storage: written and not yet deleted. */
  get outstanding(): number {
    return this.#outstanding;
  }

  /** Resolves once a log object holding the entry is durable; rejects when its PUT failed. */
  append(entry: LogEntry, storedBytes: number): Promise<void> {
    if (this.#closed) return Promise.reject(unavailable("the star is shutting down"));
    if (this.#next === undefined) throw new Error("the commit log was not begun (replay first)");
    return new Promise((resolve, reject) => {
      this.#waiting.push({ entry, bytes: storedBytes, resolve, reject });
      this.#waitingBytes += storedBytes;
      this.#kick();
    });
  }

  #kick(): void {
    if (this.#inFlight >= this.#options.maxPutsInFlight) return;
    if (this.#waiting.length === 0 || this.#closed) return;
    const wait = this.#lastPutAt + this.#options.commitIntervalMs - Date.now();
    if (wait > 0 && this.#waitingBytes < this.#options.maxObjectBytes) {
      this.#timer ??= setTimeout(() => {
        this.#timer = undefined;
        this.#kick();
      }, wait);
      return;
    }
    clearTimeout(this.#timer);
    this.#timer = undefined;
    void this.#write();
  }

  async #write(): Promise<void> {
    this.#inFlight++;
    this.#lastPutAt = Date.now();
    let n = 0;
    let bytes = 0;
    while (n < this.#waiting.length && (n === 0 || bytes < this.#options.maxObjectBytes)) {
      bytes += (this.#waiting[n] as Waiting).bytes;
      n++;
    }
    const taken = this.#waiting.splice(0, n);
    this.#waitingBytes -= bytes;
    try {
      if (this.#abandoned.length > 0) {
        await this.#store.delete(this.#abandoned);
        this.#abandoned = [];
      }
      const key = logKey(this.#starId, this.#next as bigint);
      this.#next = (this.#next as bigint) + 1n;
      try {
        await this.#store.put(key, encodeLogObject(taken.map((t) => t.entry)));
      } catch (err) {
        this.#abandoned.push(key);
        throw err;
      }
      this.puts++;
      this.#outstanding++;
      const object: Outstanding = { key, ends: new Map() };
      for (const { entry } of taken) {
        object.ends.set(entry.streamId, entry.firstSeqNum + BigInt(entry.records.length));
        let set = this.#byStream.get(entry.streamId);
        if (!set) {
          set = new Set();
          this.#byStream.set(entry.streamId, set);
        }
        set.add(object);
      }
      for (const t of taken) t.resolve();
    } catch (err) {
      for (const t of taken) t.reject(err);
    } finally {
      this.#inFlight--;
      this.#kick();
    }
  }

  /** A stream's records below `upTo` are in chunk objects now: their log entries are done. */
  settled(streamId: string, upTo: bigint): void {
    const set = this.#byStream.get(streamId);
    if (!set) return;
    for (const object of set) {
      if ((object.ends.get(streamId) as bigint) > upTo) continue;
      set.delete(object);
      object.ends.delete(streamId);
      if (object.ends.size === 0) this.#deletable.push(object.key);
    }
    if (set.size === 0) this.#byStream.delete(streamId);
    void this.deleteSettled();
  }

  /** A deleted stream's entries need no settling. */
  forget(streamId: string): void {
    this.settled(streamId, 2n ** 64n);
  }

  /**
   * Deletes the log objects whose entries are all settled; one run at a time, which takes what
   * is added while it runs. A failure leaves them for the next call (the settler's next round).
   */
  deleteSettled(): Promise<void> {
    // With nothing to delete the run would end before it is stored, and stay stored forever.
    if (!this.#deleting && this.#deletable.length > 0) {
      this.#deleting = (async () => {
        try {
          while (this.#deletable.length > 0) {
            const batch = this.#deletable.slice(0, 1000);
            await this.#store.delete(batch);
            this.#deletable.splice(0, batch.length);
            this.#outstanding -= batch.length;
          }
        } finally {
          this.#deleting = undefined;
        }
      })();
    }
    return (this.#deleting ?? Promise.resolve()).catch(() => undefined);
  }

  /** Fails what waits: the star is stopping, and no PUT will carry it. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    const reason = unavailable("the star is shutting down");
    for (const t of this.#waiting.splice(0)) t.reject(reason);
    this.#waitingBytes = 0;
  }
}
