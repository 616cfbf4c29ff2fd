// The star-wide write-ahead log on object storage (docs/storage-layout.md, "Log objects"): the
// batches every stream this star leads commits within one commit interval go into one log
// object, PUT once; each stream's commit resolves only after that PUT succeeded, so object-store
// writes follow the interval, not the number of streams. A few PUTs may be in flight at once, so
// one slow PUT does not hold the next interval's commits; a stream is never in two of them (its
// log flushes one commit at a time), so its entries stay in log order, and what waits here is
// bounded by the streams led times their batch limit. A log object is deleted once every
// stream in it has settled its records into chunk objects (or was deleted).
//
// Fencing (docs/fleet.md): every log PUT is conditional (If-None-Match: *), commits resolve in
// log-number order only, and a failed PUT's number is voided rather than left empty. So a
// member that takes this star's log over and voids the first numbers it may still write stops
// every later acknowledgement: the PUT at a voided number fails, and nothing after it resolves.
import {
  decodeLogVoid,
  encodeLogObject,
  encodeLogVoid,
  isOwnVoid,
  type LogEntry,
} from "../../contract/codec/index.ts";
import type { ObjectStore } from "../../platform/objstore/index.ts";
import { unavailable } from "../errors.ts";
import { epochOfLogNumber, logKey } from "../storage/keys.ts";

export interface CommitLogOptions {
  /** The least time between the starts of two log PUTs. */
  commitIntervalMs: number;
  /** Entries taken into one log object, by their records' stored bytes; at least one. */
  maxObjectBytes: number;
  /** Log PUTs in flight at once. */
  maxPutsInFlight: number;
  /** Called once when a PUT finds its number voided by another member: this epoch is over. */
  onFenced?: (by: string) => void;
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

/** A log number whose PUT has ended: durable with these commits, or voided after a failure. */
interface Done {
  taken: Waiting[];
}

const VOID_RETRY_MS = 100;
const VOID_RETRY_MAX_MS = 2_000;
/**
 * How long a failed number's void may keep failing before appends are refused at once: a blip
 * (one 5xx) is ridden out, as the appends behind it would succeed a moment later.
 */
const VOID_STALL_MS = 1_000;

export class CommitLog {
  readonly #store: ObjectStore;
  readonly #starId: string;
  readonly #options: CommitLogOptions;
  /** Set by `begin` once replay has found the numbers in storage. */
  #next: bigint | undefined;
  #waiting: Waiting[] = [];
  /** Counts begin() calls: a PUT started before the latest one belongs to a past epoch. */
  #begun = 0;
  #waitingBytes = 0;
  #timer: NodeJS.Timeout | undefined;
  #lastPutAt = Number.NEGATIVE_INFINITY;
  /** The number whose commits resolve next: every number below it has ended. */
  #ackNext = 0n;
  readonly #done = new Map<bigint, Done>();
  #fenced: Error | undefined;
  /**
   * A failed number the store will not take a void at yet (it is down, or full): nothing after
   * it can resolve, so appends are refused at once, not held until their deadline.
   */
  #stalled: Error | undefined;
  /** Voids failing past VOID_STALL_MS now: the log is stalled while any is. */
  #stalls = 0;
  readonly #byStream = new Map<string, Set<Outstanding>>();
  #outstanding = 0;
  #deletable: string[] = [];
  #deleting: Promise<void> | undefined;
  #closed = false;
  /** Log objects written since the start. */
  puts = 0;
  /** Commits refused because another member had taken the log over (fenced). */
  fencedRefusals = 0;

  constructor(store: ObjectStore, starId: string, options: CommitLogOptions) {
    this.#store = store;
    this.#starId = starId;
    this.#options = options;
  }

  /**
   * `next`: the number of the first log object to write, above every one in storage. Begun
   * again after a fence, for the star's next epoch: what the last one held is the fencer's.
   */
  begin(next: bigint): void {
    // What an earlier epoch took and has not acknowledged is refused, never written at the new
    // epoch's numbers: the lease it was taken under is gone, and so are its streams here.
    this.#begun++;
    const stale = [...[...this.#done.values()].flatMap((d) => d.taken), ...this.#waiting.splice(0)];
    for (const t of stale) t.reject(this.#newEpoch());
    this.#waitingBytes = 0;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#next = next;
    this.#ackNext = next;
    this.#done.clear();
    this.#byStream.clear();
    this.#outstanding = 0;
    this.#deletable = [];
    this.#fenced = undefined;
  }

  #newEpoch(): Error {
    return unavailable(
      `star ${this.#starId} began a new epoch of its log: this append was not acknowledged; retry`,
    );
  }

  /** The epoch of the numbers this log writes. */
  get epoch(): number {
    return epochOfLogNumber(this.#next ?? 0n);
  }

  /** Log objects in storage: written and not yet deleted. */
  get outstanding(): number {
    return this.#outstanding;
  }

  /** Resolves once a log object holding the entry is durable; rejects when its PUT failed. */
  append(entry: LogEntry, storedBytes: number): Promise<void> {
    if (this.#closed) return Promise.reject(unavailable("the star is shutting down"));
    if (this.#fenced) {
      this.fencedRefusals++;
      return Promise.reject(this.#fenced);
    }
    if (this.#stalled) return Promise.reject(this.#stalled);
    if (this.#next === undefined) throw new Error("the commit log was not begun (replay first)");
    return new Promise((resolve, reject) => {
      this.#waiting.push({ entry, bytes: storedBytes, resolve, reject });
      this.#waitingBytes += storedBytes;
      this.#kick();
    });
  }

  #kick(): void {
    // Numbers are taken only within maxPutsInFlight of the first not yet resolved, so every
    // number a fencer must void lies within that many of the newest in storage (log-fence.ts).
    const taken = (this.#next ?? 0n) - this.#ackNext;
    if (taken >= BigInt(this.#options.maxPutsInFlight)) return;
    if (this.#waiting.length === 0 || this.#closed || this.#fenced) return;
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
    this.#lastPutAt = Date.now();
    let n = 0;
    let bytes = 0;
    while (n < this.#waiting.length && (n === 0 || bytes < this.#options.maxObjectBytes)) {
      bytes += (this.#waiting[n] as Waiting).bytes;
      n++;
    }
    const taken = this.#waiting.splice(0, n);
    this.#waitingBytes -= bytes;
    const number = this.#next as bigint;
    this.#next = number + 1n;
    const key = logKey(this.#starId, number);
    const body = encodeLogObject(taken.map((t) => t.entry));
    const begun = this.#begun;
    let written: string | undefined;
    try {
      written = await this.#store.putIf(key, body, { ifNoneMatch: "*" });
      // The log began a new epoch meanwhile: this number's commits are not acknowledged.
      if (this.#begun !== begun) {
        for (const t of taken) t.reject(this.#newEpoch());
        return;
      }
    } catch (err) {
      // It may still land: the number is voided before anything after it resolves.
      for (const t of taken) t.reject(err);
      await this.#voidNumber(number, body, begun);
      this.#end(number, { taken: [] });
      return;
    }
    if (written === undefined) {
      this.#fence(key, await this.#store.getVersioned(key).catch(() => undefined));
      this.#end(number, { taken });
      return;
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
    this.#end(number, { taken });
  }

  /** A number's PUT ended: its commits, and those after it that wait for it, resolve in order. */
  #end(number: bigint, done: Done): void {
    if (this.#fenced) {
      this.fencedRefusals += done.taken.length;
      for (const t of done.taken) t.reject(this.#fenced);
      return;
    }
    this.#done.set(number, done);
    for (let d = this.#done.get(this.#ackNext); d; d = this.#done.get(this.#ackNext)) {
      this.#done.delete(this.#ackNext);
      this.#ackNext++;
      for (const t of d.taken) t.resolve();
    }
    this.#kick();
  }

  /** Makes a failed PUT's number hold a void, whether or not the PUT landed after all. */
  async #voidNumber(number: bigint, ours: Uint8Array, begun: number): Promise<void> {
    const key = logKey(this.#starId, number);
    const epoch = epochOfLogNumber(number);
    const mark = encodeLogVoid({ by: this.#starId, epoch });
    // Until the log begins another epoch: that epoch's fence has settled this number's fate,
    // and what it finds here must not fence the epoch that began.
    const since = Date.now();
    let stalled = false;
    try {
      for (let wait = VOID_RETRY_MS; !this.#closed && !this.#fenced && this.#begun === begun; ) {
        try {
          if ((await this.#store.putIf(key, mark, { ifNoneMatch: "*" })) !== undefined) return;
          const there = await this.#store.getVersioned(key);
          if (this.#begun !== begun) return;
          if (there && Buffer.from(ours).equals(there.body)) {
            if ((await this.#store.putIf(key, mark, { ifMatch: there.etag })) !== undefined) return;
          } else if (there && isOwnVoid(decodeLogVoid(there.body), this.#starId, epoch)) {
            return;
          } else if (there) {
            this.#fence(key, there);
            return;
          }
        } catch (err) {
          // The store is down: the log stalls here until it is back, as every later number waits.
          if (Date.now() - since >= VOID_STALL_MS) {
            if (!stalled) this.#stalls++;
            stalled = true;
            this.#stall(err);
          }
        }
        await new Promise((resolve) => setTimeout(resolve, wait));
        wait = Math.min(wait * 2, VOID_RETRY_MAX_MS);
      }
    } finally {
      if (stalled && --this.#stalls === 0) this.#stalled = undefined;
    }
  }

  /** Refuses what waits, and what comes, until the failed number is voided: none of it is written. */
  #stall(err: unknown): void {
    this.#stalled ??= unavailable(
      `object storage refused the star's log (${(err as Error).message}): nothing was appended; retry`,
    );
    const refused = this.#waiting.splice(0);
    this.#waitingBytes = 0;
    for (const t of refused) t.reject(this.#stalled);
  }

  /** Another member wrote at one of this log's numbers: this epoch acknowledges nothing more. */
  #fence(key: string, there: { body: Buffer } | undefined): void {
    if (this.#fenced) return;
    const by = (there && decodeLogVoid(there.body)?.by) ?? "another member";
    this.#fenced = unavailable(
      `star ${this.#starId} lost its lease: ${by} took over its log (at ${key}); ` +
        "nothing in flight was acknowledged; retry, the stream's new leader answers",
    );
    const pending = [...this.#done.values()].flatMap((d) => d.taken);
    this.#done.clear();
    const refused = [...pending, ...this.#waiting.splice(0)];
    this.fencedRefusals += refused.length;
    for (const t of refused) t.reject(this.#fenced);
    this.#waitingBytes = 0;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#options.onFenced?.(by);
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
    // The newest resolved object stays (until a later one resolves), settled or not: listing
    // finds the log's high-water mark, which deletes must not lower. A fencer takes it as where
    // to void (log-fence.ts); the damage rule (damage-rule.ts) counts only the objects above it
    // as PUTs a stop may have cut short, so an older acked object found damaged is refused,
    // never passed over as torn.
    const kept = () => logKey(this.#starId, this.#ackNext - 1n);
    const deletable = () => this.#deletable.filter((k) => k !== kept());
    // With nothing to delete the run would end before it is stored, and stay stored forever.
    if (!this.#deleting && deletable().length > 0) {
      this.#deleting = (async () => {
        try {
          for (;;) {
            const batch = deletable().slice(0, 1000);
            if (batch.length === 0) break;
            await this.#store.delete(batch);
            const gone = new Set(batch);
            this.#deletable = this.#deletable.filter((k) => !gone.has(k));
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
