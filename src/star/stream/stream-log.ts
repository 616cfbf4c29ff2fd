// One stream as its leader holds it: the tail, the last timestamp, the trim point, the fencing
// token and the chunk index, recovered from object storage; appends paced by the stream's
// throughput cap (append-pacer.ts: held in order, or refused past the wait bound), then batched
// (group-commit.ts: one flush in flight, so entries never leave gaps), both on one injected
// clock, and sequenced and committed as one entry of the star's log; acked records held in memory
// until they settle into chunk objects sized for reads; reads served from chunks and then from
// the unsettled records; waiters woken on every commit. Idempotent producers and the stream's
// close (docs/producers.md) are judged in sequencing, logged as marks with their commit, and
// kept in the stream's state object from the settle that lets those log entries go.

import { status } from "@grpc/grpc-js";
import {
  type ChunkRecord,
  contentBytes,
  type DecodedChunkRecord,
  type ProducerMark,
} from "../../contract/codec/index.ts";
import type { Stream__Output } from "../../gen/nova/v1/Stream.ts";
import { compactRecords, recordsMemory } from "../../platform/memory/index.ts";
import { type AppendBudget, batchMemory } from "../append/append-budget.ts";
import { type CommandEffect, foldCommand } from "../append/command-records.ts";
import { batchTimestamp, type ValidBatch } from "../append/validate-batch.ts";
import { laterWriterSeq, writerSeqRefusal } from "../append/writer-seq.ts";
import {
  afterRefusal,
  fencingTokenMismatch,
  producerFenced,
  producerSeqGap,
  producerSeqStale,
  type StarError,
  seqNumMismatch,
  streamClosed,
  streamNotFound,
  throughputExceeded,
  tooManyProducers,
  unavailable,
} from "../errors.ts";
import { expiryDueMs } from "../lifecycle/expiry.ts";
import { DEFAULT_LIMITS } from "../limits.ts";
import {
  type BatchAck,
  judge,
  type ProducerClaim,
  type ProducerEntry,
  remember,
} from "../producers/producer-rules.ts";
import { type ProducerLimits, ProducerTable } from "../producers/producer-table.ts";
import type { Catalog, StreamState, VersionedState } from "../storage/catalog.ts";
import { type ChunkStore, MissingChunkError } from "../storage/chunk-store.ts";
import type { CommitLog } from "../wal/commit-log.ts";
import { AppendPacer } from "./append-pacer.ts";
import { ChunkIndex, type ChunkMeta } from "./chunk-index.ts";
import { extendFromListing } from "./chunk-listing.ts";
import { type Extent, type ReadBounds, readPage, seqForTimestamp } from "./chunk-reads.ts";
import { type Clock, SYSTEM_CLOCK } from "./clock.ts";
import { type BatchLimits, GroupCommit, type Size } from "./group-commit.ts";

export type { ReadBounds } from "./chunk-reads.ts";
export type { Clock } from "./clock.ts";

export interface Pos {
  seqNum: bigint;
  timestampMs: bigint;
}

export interface AppendAck {
  start: Pos;
  end: Pos;
  tail: Pos;
  /** A producer's retry: nothing appended, start and end are the original batch's. */
  duplicate?: boolean;
  /** The stream is closed. */
  closed?: boolean;
  /** On a producer's duplicate: the highest seq acknowledged in its epoch. */
  producerSeq?: bigint;
}

export interface AppendOptions {
  matchSeqNum?: bigint;
  fencingToken?: string;
  arrivalMs: bigint;
  producer?: ProducerClaim;
  /** Close the stream after this batch. */
  close?: boolean;
  /** The batch lands only if this sorts (bytewise) above the stream's last writer seq. */
  writerSeq?: string;
  /**
   * The batches of one writer that must land as a chain: once one is refused, every later one
   * is refused too, those already queued included (an `end_on_refusal` session).
   */
  chain?: { broken: boolean };
}

/** A live producer session, so Fence can supersede the ones its new token no longer admits. */
export interface SessionHandle {
  readonly fencingToken: string | undefined;
  supersede(err: StarError): void;
}

export interface StreamLogOptions {
  /** The longest the throughput cap may hold an append; one it would hold longer is refused. */
  throughputMaxWaitMs: number;
  /** The star's log, where every commit is durable before it is acked. */
  wal: CommitLog;
  /** A settled chunk holds about this many content bytes (at least one record). */
  settleChunkBytes: number;
  /** The clock pacing and batching run on: the system's unless a test brings its own. */
  clock?: Clock;
  /** The star's bound on appends taken and not yet answered; absent (a test's log): none. */
  appendBudget?: AppendBudget;
  /** Idle expiry and cap of the producers remembered; the star's defaults when absent. */
  producers?: ProducerLimits;
  /**
   * In a fleet, whether this star still holds its lease by its own clock. A state write it
   * would start without is refused: a paused member that resumes mid-settle must not put back
   * an older producer table over its successor's (docs/fleet.md, "Fencing"). Absent: always.
   */
  holdsLease?: () => boolean;
}

/** What one settle moved into chunk objects. */
export interface Settled {
  records: number;
  bytes: number;
  chunks: number;
}

/** A commit still (partly) unsettled: where it ends and when it was acked. */
interface UnsettledCommit {
  end: bigint;
  atMs: number;
}

type Queued =
  | {
      kind: "batch";
      batch: ValidBatch;
      options: AppendOptions;
      resolve: (ack: AppendAck) => void;
      reject: (err: unknown) => void;
    }
  | { kind: "fence"; token: string; resolve: (tail: Pos) => void; reject: (err: unknown) => void }
  | {
      kind: "close";
      fencingToken: string | undefined;
      /** A close without records stamped by a producer: refused when the epoch is fenced. */
      producer?: ProducerClaim | undefined;
      resolve: (ack: AppendAck) => void;
      reject: (err: unknown) => void;
    }
  | { kind: "vacate"; resolve: (empty: boolean) => void; reject: (err: unknown) => void };

type BatchItem = Extract<Queued, { kind: "batch" }>;

interface Sequenced {
  item: BatchItem;
  start: bigint;
  timestampMs: bigint;
}

/** A flush's batches, and the retries of them that wait for their commit to answer. */
interface Sequencing {
  batches: Sequenced[];
  retries: { item: BatchItem; ack: BatchAck; highest: bigint }[];
  /** What the batches' command records do once they commit; undefined when they have none. */
  commands?: CommandEffect | undefined;
  closes: boolean;
  /** The last writer seq the batches took; undefined when none gave one. */
  writerSeq?: string | undefined;
}

/** Producers this flush admitted that the table does not remember yet. */
function newIn(pending: Map<string, unknown>, table: ProducerTable): number {
  let n = 0;
  for (const id of pending.keys()) if (table.get(id) === undefined) n++;
  return n;
}

const NOTHING: Size = { bytes: 0, records: 0 };

/** A state write that lost to another writer merges and tries again at most this often. */
const STATE_MERGES = 3;

/** Refuses a batch; its chain, if any, is broken from here on. */
function refuse(item: BatchItem, err: StarError): void {
  if (item.options.chain) item.options.chain.broken = true;
  item.reject(err);
}

/** What a batch counts for against the batch limits. */
function batchSize(batch: ValidBatch): Size {
  return { bytes: batch.contentBytes, records: batch.records.length };
}

export class StreamLog {
  descriptor: Stream__Output;
  readonly #catalog: Catalog;
  readonly #chunks: ChunkStore;
  readonly #index = new ChunkIndex();
  #tail = 0n;
  #lastTimestamp = 0n;
  #state: StreamState;
  /** The state object's ETag as this log last read or wrote it; undefined: none yet. */
  #stateEtag: string | undefined;
  #trim = 0n;
  readonly #wal: CommitLog;
  readonly #settleChunkBytes: number;
  readonly #holdsLease: () => boolean;
  /** Acked records not yet in a chunk object, in order from the end of the chunks. */
  #unsettled: DecodedChunkRecord[] = [];
  #unsettledBytes = 0;
  #unsettledCommits: UnsettledCommit[] = [];
  /** Settles run one at a time, in order. */
  #settleChain: Promise<unknown> = Promise.resolve();
  /** Chunks out of the index below the trim point whose delete failed: the next reclaim's. */
  readonly #unreclaimed: ChunkMeta[] = [];
  /** After a chunk PUT failed (it may have landed), the next settle writes the same chunk. */
  #retryCount: number | undefined;
  #closed: StarError | undefined;
  #waiters = new Set<() => void>();
  readonly sessions = new Set<SessionHandle>();
  readonly #maxWaitMs: number;
  readonly #appendBudget: AppendBudget | undefined;
  readonly #pacer: AppendPacer<Queued>;
  readonly #groupCommit: GroupCommit<Queued>;
  readonly #clock: Clock;
  readonly #producers: ProducerTable;
  readonly #producerLimits: ProducerLimits;
  /** Closed for appends (the API's "closed"; `closed` above is this star's end of the log). */
  #sealed: boolean;
  /** Producer marks, a close or a command record acked since the state object was written. */
  #stateDirty = false;
  /** The fencing token in force: a Fence, or a fence command record once its batch committed. */
  #fencing: string;
  /** The last writer seq a committed batch took (Durable Streams' Stream-Seq). */
  #writerSeq: string | undefined;
  /** State-object writes run one at a time, each with the table as it is when it starts. */
  #statePuts: Promise<unknown> = Promise.resolve();
  /** Settles, state writes and reclaims started and not ended. */
  #working = 0;
  /** Holders that keep the log open while they last (a Subscribe waiting on its reader). */
  #users = 0;
  #lastUseMs: number;

  private constructor(
    descriptor: Stream__Output,
    catalog: Catalog,
    chunks: ChunkStore,
    { state, etag }: VersionedState,
    options: StreamLogOptions,
  ) {
    this.descriptor = descriptor;
    this.#catalog = catalog;
    this.#chunks = chunks;
    this.#state = state;
    this.#stateEtag = etag;
    this.#trim = BigInt(state.trim_seq_num);
    this.#fencing = state.fencing_token;
    this.#writerSeq = state.writer_seq;
    this.#maxWaitMs = options.throughputMaxWaitMs;
    this.#appendBudget = options.appendBudget;
    const clock = options.clock ?? SYSTEM_CLOCK;
    this.#clock = clock;
    this.#producerLimits = options.producers ?? {
      ttlMs: DEFAULT_LIMITS.producerTtlMs,
      maxPerStream: DEFAULT_LIMITS.maxProducersPerStream,
    };
    this.#producers = new ProducerTable(this.#producerLimits, state.producers);
    this.#sealed = state.closed === true;
    this.#pacer = new AppendPacer({
      clock,
      maxWaitMs: options.throughputMaxWaitMs,
      release: (item) => this.#enqueue(item),
    });
    this.#groupCommit = new GroupCommit({
      clock,
      limits: () => this.#batchLimits(),
      flush: () => this.#flush(),
    });
    this.#wal = options.wal;
    this.#settleChunkBytes = options.settleChunkBytes;
    this.#holdsLease = options.holdsLease ?? (() => true);
    this.#lastUseMs = clock.now();
  }

  /** Recovers a stream from storage: its chunk listing, trim point and fencing token. */
  static async open(
    descriptor: Stream__Output,
    catalog: Catalog,
    chunks: ChunkStore,
    options: StreamLogOptions,
  ): Promise<StreamLog> {
    const log = new StreamLog(
      descriptor,
      catalog,
      chunks,
      await catalog.readState(descriptor.stream_id),
      options,
    );
    try {
      await log.#recoverChunks();
      // What retention (age or size) took while the stream was not open here (closed idle, or
      // before a restart) is never served: the trim comes before the first read.
      await log.trimTo(log.retentionPoint(BigInt(log.#clock.now())));
    } catch (err) {
      // Its producers were counted in the star's budget: a log never opened gives them back.
      log.#producers.release();
      throw err;
    }
    return log;
  }

  /** The star replayed its log before opening any stream: the chunks hold every acked record. */
  async #recoverChunks(): Promise<void> {
    await extendFromListing(this.#chunks.store, this.descriptor.stream_id, this.#index);
    const last = this.#index.last();
    this.#tail = last ? last.firstSeqNum + BigInt(last.count) : this.#trim;
    this.#lastTimestamp = last ? last.maxTimestampMs : 0n;
  }

  get tail(): Pos {
    return { seqNum: this.#tail, timestampMs: this.#lastTimestamp };
  }

  get trimPoint(): bigint {
    return this.#trim;
  }

  get fencingToken(): string {
    return this.#fencing;
  }

  get closed(): boolean {
    return this.#closed !== undefined;
  }

  /** Closed for appends: nothing will follow the tail. */
  get sealed(): boolean {
    return this.#sealed;
  }

  /** The settled chunks, the unsettled records and the readable range now. */
  get extent(): Extent {
    return { index: this.#index, trim: this.#trim, tail: this.#tail, unsettled: this.#unsettled };
  }

  /** One past the last record in a chunk object. */
  get settledEnd(): bigint {
    return this.#unsettled[0]?.seqNum ?? this.#tail;
  }

  /**
   * Acked records not yet settled: how many, their content bytes, the memory they hold (their
   * objects too: records without content hold memory all the same), when the oldest was acked.
   */
  get unsettled(): {
    records: number;
    bytes: number;
    memory: number;
    oldestMs: number | undefined;
  } {
    return {
      records: this.#unsettled.length,
      bytes: this.#unsettledBytes,
      memory: recordsMemory(this.#unsettledBytes, this.#unsettled.length),
      oldestMs: this.#unsettledCommits[0]?.atMs,
    };
  }

  // ---- appends ----

  /**
   * Appends a batch once the stream's throughput cap admits it: at once, or held behind what
   * came before it; refused (RESOURCE_EXHAUSTED with ThroughputExceeded, nothing stored) when
   * the cap would hold it longer than the wait bound.
   */
  append(batch: ValidBatch, options: AppendOptions): Promise<AppendAck> {
    if (this.#closed) return Promise.reject(this.#closed);
    if (options.chain?.broken) return Promise.reject(afterRefusal());
    return new Promise<AppendAck>((resolve, reject) => {
      let release = () => {};
      const item: BatchItem = {
        kind: "batch",
        batch,
        options,
        resolve: (ack) => {
          release();
          resolve(ack);
        },
        reject: (err) => {
          release();
          reject(err);
        },
      };
      try {
        release = this.#appendBudget?.take(batchMemory(batch)) ?? release;
      } catch (err) {
        refuse(item, err as StarError);
        return;
      }
      // Read each time: a reconfigured descriptor applies from the next append on.
      const limit = this.descriptor.throughput_max_bytes_per_second;
      const refused = this.#pacer.batch(item, batch.contentBytes, Number(limit));
      if (refused) refuse(item, throughputExceeded(limit, refused.retryAfterMs, this.#maxWaitMs));
    });
  }

  /**
   * Closes the stream after every batch queued before it, under the same fencing rule as an
   * append, and refused to a producer's fenced epoch (a zombie may not close what its successor
   * writes); closing a closed one is a no-op.
   */
  seal(fencingToken?: string, producer?: ProducerClaim): Promise<AppendAck> {
    if (this.#closed) return Promise.reject(this.#closed);
    return new Promise((resolve, reject) =>
      this.#pacer.fence({ kind: "close", fencingToken, producer, resolve, reject }),
    );
  }

  /**
   * Whether the stream is due for deletion by its delete_on_empty_min_age_ms: it holds no
   * records (all trimmed or expired, or none ever) and is at least that old.
   */
  emptyAndAged(nowMs: bigint): boolean {
    return this.#empty && agedForDeleteOnEmpty(this.descriptor, nowMs);
  }

  /** No readable record: all trimmed or expired, or none ever. */
  get #empty(): boolean {
    return this.#trim >= this.#tail;
  }

  /**
   * After every batch queued before it: if the stream still holds no records, ends its life
   * here (what is queued behind fails UNAVAILABLE, nothing of it acked: a retry finds it
   * deleted) and resolves true, for the caller to delete the stream; else false.
   */
  vacateIfEmpty(): Promise<boolean> {
    if (this.#closed) return Promise.resolve(false);
    return new Promise((resolve, reject) => this.#pacer.fence({ kind: "vacate", resolve, reject }));
  }

  #applyVacate(item: Extract<Queued, { kind: "vacate" }>): void {
    // Closed for the delete that follows; if it fails, the stream opens again: retry.
    if (this.#empty) {
      const { bucket, key } = this.descriptor;
      this.close(
        unavailable(
          `stream ${JSON.stringify(key)} in bucket ${JSON.stringify(bucket)} holds no records and is being deleted (delete_on_empty); retry`,
        ),
      );
    }
    item.resolve(this.#empty);
  }

  /** Installs, rotates or clears the fencing token after every batch queued before it. */
  fence(token: string): Promise<Pos> {
    if (this.#closed) return Promise.reject(this.#closed);
    return new Promise((resolve, reject) =>
      this.#pacer.fence({ kind: "fence", token, resolve, reject }),
    );
  }

  #enqueue(item: Queued): void {
    this.#groupCommit.push(item, item.kind === "batch" ? batchSize(item.batch) : undefined);
  }

  /** Read at every decision: a reconfigured descriptor batches by its new limits at once. */
  #batchLimits(): BatchLimits {
    const d = this.descriptor;
    return {
      immediate: d.class === "CLASS_EXPRESS",
      maxBytes: Number(d.batch_max_bytes),
      maxRecords: d.batch_max_records,
      maxDelayMs: d.batch_max_delay_ms,
    };
  }

  /** One group commit's flush: never rejects, failing its batches instead. */
  async #flush(): Promise<void> {
    let sequencing: Sequencing = { batches: [], retries: [], closes: false };
    try {
      sequencing = await this.#sequence();
      if (sequencing.batches.length > 0) await this.#commit(sequencing);
    } catch (err) {
      // The log PUT failed: nothing is acked and the tail stays; the star's log voids the
      // number (its object may have landed) before it acks any later one, and a replay that
      // finds it unvoided takes the later entries reusing its seq_nums (standingEntries).
      const failure = unavailable(
        `append outcome unknown: ${err instanceof Error ? err.message : String(err)}`,
      );
      for (const s of sequencing.batches) s.item.reject(failure);
      for (const r of sequencing.retries) r.item.reject(failure);
    }
  }

  /**
   * Takes queued batches up to the batch limits, applying fences, closes, producer rules and
   * match checks in order. A close ends the flush: nothing is taken after it.
   */
  async #sequence(): Promise<Sequencing> {
    const d = this.descriptor;
    const out: Sequenced[] = [];
    const retries: Sequencing["retries"] = [];
    // Producers as this flush's batches leave them, to judge the next batch of the same one.
    const pending = new Map<string, ReturnType<ProducerTable["get"]>>();
    let next = this.#tail;
    // The time to clamp to: the last record's, and none before a first record.
    let lastTs: bigint | undefined = this.#tail > 0n ? this.#lastTimestamp : undefined;
    const taken = { bytes: 0, records: 0 };
    let oversizedTaken = false;
    // Command records in force for the batches after theirs, as soon as they are sequenced.
    let commands: CommandEffect | undefined;
    // The writer seq as this flush's batches leave it, to judge the next one.
    let writerSeq = this.#writerSeq;
    const took = () => (writerSeq === this.#writerSeq ? undefined : writerSeq);
    for (let item = this.#groupCommit.next; item; item = this.#groupCommit.next) {
      if (item.kind !== "batch") {
        if (out.length > 0 || retries.length > 0) break;
        this.#groupCommit.take();
        if (item.kind === "fence") await this.#applyFence(item);
        else if (item.kind === "close") await this.#applySeal(item);
        else this.#applyVacate(item);
        continue;
      }
      const size = batchSize(item.batch);
      // One batch over the limits (it would commit alone) joins the others of a commit, which
      // stay within the limits: small appends ride with a large one instead of each taking a
      // commit of their own, and of the stream's turn, under a flood of large ones.
      const oversized = !this.#groupCommit.fits(NOTHING, size);
      if (oversized ? oversizedTaken : out.length > 0 && !this.#groupCommit.fits(taken, size)) {
        break;
      }
      this.#groupCommit.take();
      if (item.options.chain?.broken) {
        item.reject(afterRefusal());
        continue;
      }
      const claim = item.options.producer;
      const entry =
        claim && (pending.has(claim.id) ? pending.get(claim.id) : this.#producers.get(claim.id));
      if (claim) {
        const verdict = judge(entry, claim);
        if (verdict.kind === "duplicate") {
          // Acked already: answer now. Still in this flush: answer with its commit.
          const highest = (entry as ProducerEntry).seq;
          if (pending.has(claim.id) && verdict.ack.start >= this.#tail) {
            retries.push({ item, ack: verdict.ack, highest });
          } else item.resolve(this.#duplicateAck(verdict.ack, highest));
          continue;
        }
        const refusal = producerRefusal(verdict, claim);
        if (refusal) {
          refuse(item, refusal);
          continue;
        }
      }
      // A new producer past the cap is refused last: its 429 says retry, which a closed stream,
      // a fencing or match miss or a writer seq refusal would never let land.
      const refusal =
        this.#admit(item.options, next, commands?.fencingToken ?? this.#fencing) ??
        writerSeqRefusal(item.options.writerSeq, writerSeq) ??
        (claim && entry === undefined
          ? this.#capRefusal(newIn(pending, this.#producers))
          : undefined);
      if (refusal) {
        refuse(item, refusal);
        continue;
      }
      writerSeq = item.options.writerSeq ?? writerSeq;
      const timestampMs = batchTimestamp(
        item.batch.maxClientTimestamp,
        item.options.arrivalMs,
        d.timestamping_uncapped,
        lastTs,
      );
      out.push({ item, start: next, timestampMs });
      if (claim) {
        const ack = { seq: claim.seq, start: next, end: next + BigInt(size.records), timestampMs };
        pending.set(claim.id, remember(entry, claim.epoch, ack, this.#clock.now()));
      }
      next += BigInt(size.records);
      for (const command of item.batch.commands ?? []) {
        commands = foldCommand(commands ?? {}, command);
      }
      lastTs = timestampMs;
      if (oversized) oversizedTaken = true;
      else {
        taken.bytes += size.bytes;
        taken.records += size.records;
      }
      if (item.options.close) {
        return { batches: out, retries, closes: true, commands, writerSeq: took() };
      }
    }
    return { batches: out, retries, closes: false, commands, writerSeq: took() };
  }

  /** A new producer's refusal when the stream's table (or the star's budget) is full. */
  #capRefusal(starting: number): StarError | undefined {
    return this.#producers.admitsNew(this.#clock.now(), starting)
      ? undefined
      : tooManyProducers(this.#producerLimits.maxPerStream);
  }

  #duplicateAck(ack: BatchAck, highest: bigint): AppendAck {
    return {
      producerSeq: highest,
      start: { seqNum: ack.start, timestampMs: ack.timestampMs },
      end: { seqNum: ack.end, timestampMs: ack.timestampMs },
      tail: this.tail,
      duplicate: true,
      closed: this.#sealed || undefined,
    };
  }

  #admit(options: AppendOptions, next: bigint, installed: string): StarError | undefined {
    if (this.#sealed) return streamClosed(this.#tail, this.#lastTimestamp);
    const fencing = this.#fencingRefusal(options.fencingToken, installed);
    if (fencing) return fencing;
    if (options.matchSeqNum !== undefined && options.matchSeqNum !== next) {
      return seqNumMismatch(next);
    }
    return undefined;
  }

  #fencingRefusal(token: string | undefined, installed = this.#fencing): StarError | undefined {
    const fenced = this.descriptor.producer_policy === "PRODUCER_POLICY_FENCED";
    if ((fenced || token !== undefined) && (token ?? "") !== installed) {
      return fencingTokenMismatch(installed !== "");
    }
    return undefined;
  }

  async #applyFence(item: Extract<Queued, { kind: "fence" }>): Promise<void> {
    try {
      await this.#putState({ fencing_token: item.token });
      this.#installFencingToken(item.token);
      item.resolve(this.tail);
    } catch (err) {
      item.reject(err);
    }
  }

  /** The token in force from now on: append sessions on another one are superseded. */
  #installFencingToken(token: string): void {
    this.#fencing = token;
    for (const s of this.sessions) {
      if ((s.fencingToken ?? "") !== token) s.supersede(fencingTokenMismatch(token !== ""));
    }
  }

  async #applySeal(item: Extract<Queued, { kind: "close" }>): Promise<void> {
    try {
      const refusal = this.#sealed ? undefined : this.#fencingRefusal(item.fencingToken);
      if (refusal) throw refusal;
      const claim = item.producer;
      const entry = claim && !this.#sealed ? this.#producers.get(claim.id) : undefined;
      // Of the rules, only the epoch's: a close without records has no seq to judge.
      const verdict = claim && entry && judge(entry, claim);
      if (claim && verdict?.kind === "fenced") throw producerRefusal(verdict, claim);
      if (!this.#sealed) {
        await this.#putState({ closed: true });
        this.#sealed = true;
        this.#wake();
      }
      item.resolve({ start: this.tail, end: this.tail, tail: this.tail, closed: true });
    } catch (err) {
      item.reject(err);
    }
  }

  /**
   * Writes the state object with `patch` and the producers as they are when the write starts
   * (after the writes before it), so a later write never carries an older table.
   */
  #putState(patch: Partial<StreamState>, trimTo = 0n): Promise<void> {
    const run = this.#statePuts.then(async () => {
      // A deleted stream's state object is reclaimed: nothing writes it again.
      if (this.#closed && this.#closed.code !== status.UNAVAILABLE) throw this.#closed;
      this.#stateDirty = false;
      try {
        for (let merges = 0; ; merges++) {
          if (!this.#holdsLease()) {
            throw unavailable(
              "this star's lease may have lapsed: the stream's state is not written; retry, another member may lead it now",
            );
          }
          if (await this.#writeState(patch, trimTo)) return;
          // Another write landed since this log read or wrote the state: a lost member's, a
          // takeover's replay. A log closed here leads no more; an open one takes what the
          // other holds beyond its own and writes again.
          if (this.#closed || merges === STATE_MERGES) throw this.#stateTaken();
          await this.#mergeStoredState();
        }
      } catch (err) {
        this.#stateDirty = true;
        throw err;
      }
    });
    this.#statePuts = this.#tracked(run).catch(() => undefined);
    return run;
  }

  /** One conditional write of the state as it is now, with `patch`: false when it lost. */
  async #writeState(patch: Partial<StreamState>, trimTo: bigint): Promise<boolean> {
    this.#producers.expire(this.#clock.now());
    // The trim point at the write, not at the call: a trim racing a higher one never lowers it.
    const trim = trimTo > this.#trim ? trimTo : this.#trim;
    const state: StreamState = {
      ...this.#state,
      fencing_token: this.#fencing,
      trim_seq_num: trim.toString(),
      producers: this.#producers.toJSON(),
      closed: this.#sealed,
      // What this state holds of the command records: all of those the tail covers.
      commands_through: this.#tail.toString(),
      ...(this.#writerSeq === undefined ? {} : { writer_seq: this.#writerSeq }),
      ...patch,
    };
    const etag = await this.#catalog.putStateIf(this.descriptor.stream_id, state, this.#stateEtag);
    if (etag === undefined) return false;
    this.#stateEtag = etag;
    this.#state = state;
    this.#raiseTrim(trim);
    return true;
  }

  /**
   * Reads the state another writer left and keeps what it holds beyond this log's own, all of
   * it forward only: producers' acks, a close, a later writer seq, a higher trim point. The
   * fencing token stays this log's: it applied every command record up to its tail.
   */
  async #mergeStoredState(): Promise<void> {
    const { state, etag } = await this.#catalog.readState(this.descriptor.stream_id);
    this.#stateEtag = etag;
    this.#producers.merge(state.producers);
    if (state.closed === true && !this.#sealed) {
      this.#sealed = true;
      this.#wake();
    }
    this.#writerSeq = laterWriterSeq(this.#writerSeq, state.writer_seq);
    const trim = BigInt(state.trim_seq_num);
    this.#raiseTrim(trim > this.#tail ? this.#tail : trim);
  }

  /** Moves the trim point up to `trim`; waiters learn of it (subscribers tell their readers). */
  #raiseTrim(trim: bigint): void {
    if (trim <= this.#trim) return;
    this.#trim = trim;
    this.#wake();
  }

  #stateTaken(): StarError {
    const { bucket, key } = this.descriptor;
    return unavailable(
      `stream ${JSON.stringify(key)} in bucket ${JSON.stringify(bucket)}: another member wrote its state since this star did; retry, another member may lead it now`,
    );
  }

  async #commit({
    batches: sequenced,
    retries,
    closes,
    commands,
    writerSeq,
  }: Sequencing): Promise<void> {
    const first = sequenced[0] as Sequenced;
    const records: ChunkRecord[] = [];
    const producers: ProducerMark[] = [];
    let bytes = 0;
    for (const s of sequenced) {
      for (const r of s.item.batch.records) records.push({ ...r, timestampMs: s.timestampMs });
      bytes += s.item.batch.contentBytes;
      const claim = s.item.options.producer;
      const end = s.start + BigInt(s.item.batch.records.length);
      if (claim) producers.push({ ...claim, start: s.start, end, timestampMs: s.timestampMs });
    }
    const d = this.descriptor;
    const entry = {
      streamId: d.stream_id,
      bucket: d.bucket,
      key: d.key,
      firstSeqNum: first.start,
      records,
      marks: { producers, closed: closes, ...(writerSeq === undefined ? {} : { writerSeq }) },
    };
    await this.#wal.append(entry, bytes);
    const now = this.#clock.now();
    for (const m of producers) this.#producers.remember(m, now);
    if (writerSeq !== undefined) this.#writerSeq = writerSeq;
    if (producers.length > 0 || closes || commands || writerSeq !== undefined) {
      this.#stateDirty = true;
    }
    if (closes) this.#sealed = true;
    if (commands?.fencingToken !== undefined) this.#installFencingToken(commands.fencingToken);
    const end = first.start + BigInt(records.length);
    const trimTo = commands?.trimTo !== undefined && commands.trimTo < end ? commands.trimTo : end;
    const trimmed = commands?.trimTo !== undefined && trimTo > this.#trim;
    if (trimmed) this.#trim = trimTo;
    // Kept until settled: copied out of the request buffers they were decoded from, so the
    // unsettled bytes counted are the memory held.
    compactRecords(records, 1).records.forEach((r, i) => {
      this.#unsettled.push({ ...r, seqNum: first.start + BigInt(i) });
    });
    this.#unsettledBytes += bytes;
    const last = sequenced[sequenced.length - 1] as Sequenced;
    this.#tail = first.start + BigInt(records.length);
    this.#unsettledCommits.push({ end: this.#tail, atMs: Date.now() });
    this.#lastTimestamp = last.timestampMs;
    // Other members read the trim point from the state object: a trim command's is written
    // before its ack (it is durable in the log already: a failed write is retried at the settle).
    if (trimmed) await this.#putState({}).catch(() => undefined);
    const tail = this.tail;
    for (const s of sequenced) {
      const end = s.start + BigInt(s.item.batch.records.length);
      s.item.resolve({
        start: { seqNum: s.start, timestampMs: s.timestampMs },
        end: { seqNum: end, timestampMs: s.timestampMs },
        tail,
        closed: this.#sealed || undefined,
      });
    }
    for (const r of retries) r.item.resolve(this.#duplicateAck(r.ack, r.highest));
    this.#wake();
    // A read-sized chunk's worth: settle now rather than at the next settler round (which
    // retries, and logs, a failure of this one).
    if (this.#unsettledBytes >= this.#settleChunkBytes) void this.settle().catch(() => undefined);
  }

  // ---- settling ----

  /**
   * Moves every record acked so far into chunk objects, a read-sized chunk at a time, and tells
   * the star's log, which deletes a log object once all of it is settled.
   */
  settle(): Promise<Settled> {
    const target = this.#tail;
    const run = this.#tracked(this.#settleChain.then(() => this.#settleUpTo(target)));
    this.#settleChain = run.catch(() => undefined);
    return run;
  }

  async #settleUpTo(target: bigint): Promise<Settled> {
    const done: Settled = { records: 0, bytes: 0, chunks: 0 };
    const streamId = this.descriptor.stream_id;
    while (
      this.#unsettled.length > 0 &&
      (this.#unsettled[0] as DecodedChunkRecord).seqNum < target
    ) {
      // A deleted stream settles nothing more (a star shutting down may finish its chunk).
      if (this.#closed && this.#closed.code !== status.UNAVAILABLE) return done;
      const n = this.#retryCount ?? this.#nextChunkCount();
      const part = this.#unsettled.slice(0, n);
      const bytes = part.reduce((sum, r) => sum + contentBytes(r), 0);
      this.#retryCount = n;
      const { meta } = await this.#chunks.write(
        streamId,
        (part[0] as DecodedChunkRecord).seqNum,
        part,
        bytes,
      );
      if (this.#closed && this.#closed.code !== status.UNAVAILABLE) return done;
      // The log entries this chunk settles may hold producer marks or a close: the state
      // object takes them before those entries may be deleted. Until it has, a retry writes
      // this same chunk again: another extent from the same seq_num would overlap it. A write
      // in flight (a trim's, a fence's) took them, but may still fail: it ends first.
      await this.#statePuts;
      if (this.#stateDirty) await this.#putState({});
      this.#retryCount = undefined;
      this.#index.push(meta);
      // A new array: an extent taken before keeps the records it had, all still valid.
      this.#unsettled = this.#unsettled.slice(n);
      this.#unsettledBytes -= bytes;
      const settledEnd = meta.firstSeqNum + BigInt(meta.count);
      while ((this.#unsettledCommits[0]?.end ?? settledEnd + 1n) <= settledEnd) {
        this.#unsettledCommits.shift();
      }
      this.#wal.settled(streamId, settledEnd);
      done.records += n;
      done.bytes += bytes;
      done.chunks++;
    }
    return done;
  }

  /** Records for the next chunk: at least one, then while under the read-sized chunk bytes. */
  #nextChunkCount(): number {
    let n = 0;
    let bytes = 0;
    while (n < this.#unsettled.length && (n === 0 || bytes < this.#settleChunkBytes)) {
      bytes += contentBytes(this.#unsettled[n] as DecodedChunkRecord);
      n++;
    }
    return n;
  }

  // ---- trim and retention ----

  /** Moves the trim point up (never down, never past the tail); returns the point in force. */
  async trimTo(seq: bigint): Promise<bigint> {
    // A log closed here (moved, handed back, deleted) no longer says where the stream starts.
    if (this.#closed) throw this.#closed;
    const target = seq > this.#tail ? this.#tail : seq;
    if (target <= this.#trim) return this.#trim;
    await this.#putState({}, target);
    return this.#trim;
  }

  /**
   * Drops the chunks wholly below the trim point from storage, always keeping the newest, whose
   * directory carries the tail and last timestamp across a restart. Only below the point the
   * state object holds: other members read the trim point there, and until it is written they
   * may still read the chunks above it.
   */
  async reclaim(): Promise<void> {
    const trim = BigInt(this.#state.trim_seq_num);
    const last = this.#index.last();
    const keepFrom = last && last.firstSeqNum < trim ? last.firstSeqNum : trim;
    // Out of the index at once (no read goes to them); a delete that fails is tried again at
    // the next reclaim (the retention round's), not left in storage until a restart.
    const gone = [...this.#unreclaimed.splice(0), ...this.#index.dropBelow(keepFrom)];
    if (gone.length === 0) return;
    try {
      await this.#tracked(this.#chunks.delete(gone));
    } catch (err) {
      this.#unreclaimed.push(...gone);
      throw err;
    }
  }

  /**
   * The trim point that age and size retention call for now: chunk granularity in the settled
   * part, record granularity in the unsettled part.
   */
  retentionPoint(nowMs: bigint): bigint {
    let point = this.#trim;
    const maxAge = BigInt(this.descriptor.retention_max_age_ms);
    if (maxAge > 0n) {
      const cutoff = nowMs - maxAge;
      const i = this.#index.findByTimestamp(cutoff);
      const young = this.#unsettled.find((r) => r.timestampMs >= cutoff);
      const byAge =
        i >= 0 ? (this.#index.chunks[i] as ChunkMeta).firstSeqNum : (young?.seqNum ?? this.#tail);
      if (byAge > point) point = byAge;
    }
    const maxBytes = Number(this.descriptor.retention_max_bytes);
    if (maxBytes > 0) {
      // The live bytes, newest first: what a trim took counts for nothing, and a chunk the trim
      // point falls inside counts nothing either (its live records are not told apart), so the
      // stream may keep up to a chunk more than the limit, never less.
      let kept = 0;
      for (let i = this.#unsettled.length - 1; i >= 0; i--) {
        const r = this.#unsettled[i] as DecodedChunkRecord;
        if (r.seqNum < this.#trim) return point;
        kept += contentBytes(r);
        if (kept > maxBytes) {
          return r.seqNum + 1n > point ? r.seqNum + 1n : point;
        }
      }
      const chunks = this.#index.chunks;
      for (let i = chunks.length - 1; i >= 0; i--) {
        const c = chunks[i] as ChunkMeta;
        if (c.firstSeqNum < this.#trim) break;
        kept += c.contentBytes;
        if (kept > maxBytes) {
          const bySize = c.firstSeqNum + BigInt(c.count);
          if (bySize > point) point = bySize;
          break;
        }
      }
    }
    return point;
  }

  // ---- reads ----

  /** Resolves a timestamp to the first seq_num stamped at or after it (the tail if none). */
  seqForTimestamp(ts: bigint): Promise<bigint> {
    return this.#onExtent((extent) => seqForTimestamp(this.#chunks, extent, ts));
  }

  /** One page from `start` (raised to the trim point): at least one record when one exists. */
  async read(start: bigint, bounds: ReadBounds): Promise<DecodedChunkRecord[]> {
    if (this.#closed) throw this.#closed;
    return this.#onExtent((extent) => readPage(this.#chunks, extent, start, bounds));
  }

  /**
   * Runs a look at the stored records. A trim that reclaimed a chunk while it loaded makes it
   * run again on the extent as it is now (from the new trim point), as a look that came a moment
   * later would; a chunk a delete reclaimed fails it as the delete closed the log; a chunk
   * missing otherwise is damage, and fails.
   */
  async #onExtent<T>(look: (extent: Extent) => Promise<T>): Promise<T> {
    const extent = this.extent;
    try {
      return await look(extent);
    } catch (err) {
      if (!(err instanceof MissingChunkError)) throw err;
      if (this.#closed) throw this.#closed;
      if (this.#trim <= extent.trim) throw err;
    }
    try {
      return await look(this.extent);
    } catch (err) {
      if (!(err instanceof MissingChunkError)) throw err;
      if (this.#closed) throw this.#closed;
      throw unavailable(`the stream was trimmed again while it was read (${err.message}); retry`);
    }
  }

  /** Resolves on the next commit or close, or when the signal aborts. */
  waitForChange(signal?: AbortSignal): Promise<void> {
    if (this.#closed || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.#waiters.delete(done);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      this.#waiters.add(done);
      signal?.addEventListener("abort", done, { once: true });
    });
  }

  #wake(): void {
    for (const w of [...this.#waiters]) w();
  }

  /** Ends the stream's life in this star: queued work and waiters fail with `reason`. */
  close(given?: StarError): void {
    if (this.#closed) {
      // A log closed for a while (UNAVAILABLE: a vacate, a move) may then be deleted, which its
      // deleter says; a close that names no reason leaves the first one standing.
      if (given && this.#closed.code === status.UNAVAILABLE && given.code !== status.UNAVAILABLE) {
        this.#closed = given;
      }
      return;
    }
    const reason = given ?? streamNotFound(this.descriptor.bucket, this.descriptor.key);
    this.#closed = reason;
    this.#producers.release();
    for (const item of this.#pacer.close()) item.reject(reason);
    for (const item of this.#groupCommit.close()) item.reject(reason);
    for (const s of this.sessions) s.supersede(reason);
    this.#wake();
  }

  /** Resolves once the commit under way, if any, has ended; after close nothing more commits. */
  drained(): Promise<void> {
    return this.#groupCommit.idle();
  }

  /**
   * Resolves once nothing this log started is under way: the commit, the settle and the state
   * write. After close nothing new starts, so a deleted stream's objects can then be listed and
   * reclaimed without one landing after.
   */
  async stopped(): Promise<void> {
    await this.#groupCommit.idle();
    await this.#settleChain;
    await this.#statePuts;
  }

  get closeReason(): StarError | undefined {
    return this.#closed;
  }

  // ---- idle ----

  /** Counts `work` as under way here until it ends. */
  #tracked<T>(work: Promise<T>): Promise<T> {
    this.#working++;
    return work.finally(() => {
      this.#working--;
    });
  }

  /** Notes a use now: the log's idle time counts from the last one. */
  markUsed(): void {
    this.#lastUseMs = this.#clock.now();
  }

  /** Keeps the log from closing idle until the returned release is called. */
  hold(): () => void {
    this.#users++;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.#users--;
      this.markUsed();
    };
  }

  /**
   * When the log was last used, if nothing is under way or waiting in it now: no record to
   * settle, no queued or committing batch, no settle, state write or reclaim, no chunk left to
   * reclaim, no reader, waiter or append session. Such a log closes and opens again from
   * storage with nothing lost. Undefined while something is, or once closed.
   */
  quietSince(): number | undefined {
    const busy =
      this.#closed !== undefined ||
      this.#users > 0 ||
      this.#working > 0 ||
      this.#stateDirty ||
      this.#unsettled.length > 0 ||
      this.#unreclaimed.length > 0 ||
      this.#waiters.size > 0 ||
      this.sessions.size > 0 ||
      !this.#pacer.quiet ||
      !this.#groupCommit.quiet;
    return busy ? undefined : this.#lastUseMs;
  }

  /**
   * When the retention round next has work here with no append before it: the chunk holding
   * the trim point ages out, an empty stream is old enough for delete_on_empty, or the stream
   * may have expired (its expires_at, or its idle window counted from its last use here; the
   * round judges that by the star's own count of uses). Undefined when only an append can
   * change what retention does (size retention, or none).
   */
  retentionDueMs(): bigint | undefined {
    const retained = this.#retentionDueMs();
    const expiry = expiryDueMs(this.descriptor, this.#lastUseMs);
    if (expiry === undefined) return retained;
    const expires = BigInt(expiry);
    return retained !== undefined && retained < expires ? retained : expires;
  }

  #retentionDueMs(): bigint | undefined {
    const d = this.descriptor;
    if (this.#empty) {
      const minAge = BigInt(d.delete_on_empty_min_age_ms);
      return minAge > 0n ? BigInt(d.created_at_unix_ms) + minAge : undefined;
    }
    const maxAge = BigInt(d.retention_max_age_ms);
    if (maxAge === 0n) return undefined;
    const oldest = this.#index.chunks[this.#index.findBySeq(this.#trim)];
    const young = this.#unsettled.find((r) => r.seqNum >= this.#trim);
    const newestOfOldest = oldest?.maxTimestampMs ?? young?.timestampMs ?? 0n;
    return newestOfOldest + maxAge + 1n;
  }
}

/** What a producer's verdict refuses, or nothing (accepted). */
function producerRefusal(
  verdict: ReturnType<typeof judge>,
  claim: ProducerClaim,
): StarError | undefined {
  switch (verdict.kind) {
    case "gap":
      return producerSeqGap(verdict.expected, claim.seq, verdict.unknown);
    case "stale":
      return producerSeqStale(verdict.lastSeq, claim.seq);
    case "fenced":
      return producerFenced(verdict.currentEpoch, claim.epoch);
    default:
      return undefined;
  }
}

/** Whether delete_on_empty applies to a stream of this age (it must be empty as well). */
export function agedForDeleteOnEmpty(d: Stream__Output, nowMs: bigint): boolean {
  const minAge = BigInt(d.delete_on_empty_min_age_ms);
  return minAge > 0n && nowMs - BigInt(d.created_at_unix_ms) >= minAge;
}
