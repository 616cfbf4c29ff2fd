// Replay when a star starts (docs/storage-layout.md, "Recovery"): before it opens any stream it
// leads, every log object it wrote is read back, each live stream's records past the end of its chunks
// are settled into chunk objects, and then the log objects are deleted. A kill at any point
// leaves either the log object or the chunk (or both): a second replay skips what a chunk
// already holds, so nothing is lost or written twice. The log is read under the one damage rule
// (damage-rule.ts): torn newest objects are passed over and deleted, other damage fails replay.
// The entries' producer marks and close, and what their command records do (a fencing token, a
// trim point), go into each stream's state object before the log objects that hold them are
// deleted.
import pMap from "p-map";
import type { Logger } from "pino";
import type { DecodedChunkRecord, DecodedLogEntry } from "../../contract/codec/index.ts";
import { contentBytes } from "../../contract/codec/index.ts";
import type { ObjectStore } from "../../platform/objstore/index.ts";
import {
  type Command,
  type CommandEffect,
  commandOf,
  foldCommand,
} from "../append/command-records.ts";
import { laterWriterSeq } from "../append/writer-seq.ts";
import { ProducerTable } from "../producers/producer-table.ts";
import type { Catalog, StreamState } from "../storage/catalog.ts";
import type { ChunkStore } from "../storage/chunk-store.ts";
import { ChunkIndex } from "../stream/chunk-index.ts";
import { extendFromListing } from "../stream/chunk-listing.ts";
import { continueFrom, standingEntries } from "./log-continuation.ts";
import { LOG_WORK_CONCURRENCY, type LogReader } from "./log-objects.ts";

export interface ReplayResult {
  /** The number for the star's next log object: above every one it found. */
  next: bigint;
  objects: number;
  records: number;
}

export async function replayLog(
  store: ObjectStore,
  /** Reads the log under the damage rule: torn newest objects passed over, other damage fails. */
  reader: LogReader,
  catalog: Catalog,
  chunks: ChunkStore,
  starId: string,
  chunkBytes: number,
  log: Logger,
  /** The epoch whose log numbers to replay (docs/fleet.md); default the newest in storage. */
  epoch?: number,
): Promise<ReplayResult> {
  const { decoded, passedOver } = await reader.readAll(starId, epoch);
  const keys: string[] = [];
  let next = 0n;
  for (const object of [...decoded, ...passedOver]) {
    // A void is never deleted: a fence's keeps a lost member from landing at its number.
    if (!("void" in object && object.void)) keys.push(object.key);
    if (object.number >= next) next = object.number + 1n;
  }
  const byStream = new Map<string, DecodedLogEntry[]>();
  for (const object of decoded) {
    for (const e of object.entries) {
      let list = byStream.get(e.streamId);
      if (!list) {
        list = [];
        byStream.set(e.streamId, list);
      }
      list.push(e);
    }
  }
  let records = 0;
  // Streams replay side by side: a member taking another over waits on this.
  await pMap(
    byStream,
    async ([streamId, entries]) => {
      const replayed = await replayStream(catalog, chunks, streamId, entries, chunkBytes, log);
      if (typeof replayed !== "number") throw reader.gap(starId, streamId, replayed.gapAt);
      records += replayed;
    },
    { concurrency: LOG_WORK_CONCURRENCY },
  );
  for (let i = 0; i < keys.length; i += 1000) await store.delete(keys.slice(i, i + 1000));
  if (keys.length > 0) log.info({ star: starId, objects: keys.length, records }, "log replayed");
  return { next, objects: keys.length, records };
}

/** Settles one stream's records past its chunks; the number settled, or where its entries stop. */
async function replayStream(
  catalog: Catalog,
  chunks: ChunkStore,
  streamId: string,
  entries: DecodedLogEntry[],
  chunkBytes: number,
  log: Logger,
): Promise<number | { gapAt: bigint }> {
  const first = entries[0] as DecodedLogEntry;
  const index = new ChunkIndex();
  const [stream] = await Promise.all([
    catalog.getStream(first.bucket, first.key, { fresh: true }),
    extendFromListing(chunks.store, streamId, index),
  ]);
  // Deleted since (or its key now names another stream): nothing of it is to be kept.
  if (!stream || stream.stream_id !== streamId || stream.deleted_at_unix_ms !== "0") return 0;
  const last = index.last();
  const from = last ? last.firstSeqNum + BigInt(last.count) : first.firstSeqNum;
  const { records, gapAt } = continueFrom(entries, from);
  // Every entry is deleted only after it settled, so a gap is damage, not a state to repair.
  if (gapAt !== undefined) return { gapAt };
  let start = 0;
  while (start < records.length) {
    let end = start;
    let bytes = 0;
    while (end < records.length && (end === start || bytes < chunkBytes)) {
      bytes += contentBytes(records[end] as DecodedChunkRecord);
      end++;
    }
    const part = records.slice(start, end);
    await chunks.write(streamId, (part[0] as DecodedChunkRecord).seqNum, part, bytes);
    start = end;
  }
  await keepMarks(catalog, streamId, standingEntries(entries));
  if (records.length > 0) log.debug({ streamId, records: records.length }, "stream replayed");
  return records.length;
}

/** How often a replay writes a stream's state that others keep writing before it gives up. */
const STATE_TRIES = 10;

/**
 * Applies the entries' marks and command records to the stream's state object (idempotently:
 * some may be in it; command records only from where the state's own hold ends).
 */
async function keepMarks(
  catalog: Catalog,
  streamId: string,
  entries: DecodedLogEntry[],
): Promise<void> {
  const marked = entries.some(
    (e) => e.marks.closed || e.marks.producers.length > 0 || e.marks.writerSeq !== undefined,
  );
  // Each entry's command records with their seq_nums, read once.
  const commanded = entries.map((e) =>
    e.records.flatMap((r, i) => {
      const command = commandOf(r);
      return command ? [{ seqNum: e.firstSeqNum + BigInt(i), command }] : [];
    }),
  );
  if (!marked && commanded.every((c) => c.length === 0)) return;
  // Conditional: the stream's leader, or another replay, may write the state meanwhile; then
  // the marks go onto what it wrote (they only move it forward), never over it.
  for (let tries = 1; ; tries++) {
    const { state, etag } = await catalog.readState(streamId);
    const marked = withMarks(state, entries, commanded);
    if ((await catalog.putStateIf(streamId, marked, etag)) !== undefined) return;
    if (tries === STATE_TRIES) {
      throw new Error(`the state of stream ${streamId} kept changing under the replay; retried`);
    }
  }
}

/** `state` with the entries' marks and the command records at or past its own hold applied. */
function withMarks(
  state: StreamState,
  entries: DecodedLogEntry[],
  commanded: { seqNum: bigint; command: Command }[][],
): StreamState {
  // Expiry and the cap apply when the leader next writes the state, not here.
  const unbounded = { ttlMs: Number.POSITIVE_INFINITY, maxPerStream: Number.POSITIVE_INFINITY };
  const table = new ProducerTable(unbounded, state.producers);
  const now = Date.now();
  let closed = state.closed === true;
  const through = BigInt(state.commands_through ?? "0");
  let fencingToken = state.fencing_token;
  let writerSeq = state.writer_seq;
  let trim = BigInt(state.trim_seq_num);
  let end = through;
  entries.forEach((e, i) => {
    for (const m of e.marks.producers) table.remember(m, now);
    closed ||= e.marks.closed;
    writerSeq = laterWriterSeq(writerSeq, e.marks.writerSeq);
    const entryEnd = e.firstSeqNum + BigInt(e.records.length);
    let effect: CommandEffect = {};
    for (const { seqNum, command } of commanded[i] ?? []) {
      if (seqNum >= through) effect = foldCommand(effect, command);
    }
    if (effect.fencingToken !== undefined) fencingToken = effect.fencingToken;
    if (effect.trimTo !== undefined) {
      const to = effect.trimTo < entryEnd ? effect.trimTo : entryEnd;
      if (to > trim) trim = to;
    }
    if (entryEnd > end) end = entryEnd;
  });
  return {
    ...state,
    producers: table.toJSON(),
    closed,
    fencing_token: fencingToken,
    trim_seq_num: trim.toString(),
    commands_through: end.toString(),
    ...(writerSeq === undefined ? {} : { writer_seq: writerSeq }),
  };
}
