// A fetched chunk object checked end to end before any of it is served: its length against the
// plan, the footer (trailer, footer CRC, layout), the footer against the plan's numbers, the
// DataCRC over the whole payload, then every record decoded. Any failure is `corrupt`.
//
// Why whole objects: DataCRC covers the whole payload, so a ranged slice cannot be verified
// (docs/storage-layout.md, "Checks a reader makes"), and the gateway never serves bytes it has
// not verified. A chunk is about 1 MiB (batch_max_bytes), a catch-up reads every record of all
// but its first chunk anyway, and one verified object in the cache serves every later reader
// whatever their start.
//
// A verified chunk keeps the object and two typed arrays, not a record object per record: the
// chunk cache holds hundreds of chunks, and a thousand long-lived objects per chunk made the
// garbage collector the largest cost of a catch-up (docs/catchup.md, "Cache, prefetch and
// memory"). The object may sit in pooled memory (chunk-memory.ts)
// that is lent again once the cache lets the chunk go: records are served from a copy of the
// range a reader takes, made only after checking that the memory still holds this chunk.
import {
  CorruptionError,
  decodeChunkSlice,
  decodeFooter,
  decodeStoredRecord,
  verifyPayload,
} from "../../contract/codec/index.ts";
import type { Record__Output } from "../../gen/nova/v1/Record.ts";
import { ChunkMemoryPool, type Lent } from "./chunk-memory.ts";
import { ChunkFault } from "./faults.ts";
import type { PlanEntry } from "./plan-entry.ts";

const EMPTY = Buffer.alloc(0);

export class VerifiedChunk {
  readonly firstSeqNum: bigint;
  readonly count: number;
  /** Record timestamps, never decreasing: a timestamp start resolves without any record. */
  readonly timestamps: BigInt64Array;
  /** The memory the object was fetched into; undefined once released. */
  #memory: Lent | undefined;
  #payload: Buffer;
  /** count + 1 offsets: record i is payload[offsets[i], offsets[i + 1]). */
  readonly #offsets: Uint32Array;
  /** firstSeqNum as a number when every seq_num of the chunk is a safe integer. */
  readonly #firstSafe: number | undefined;

  constructor(
    firstSeqNum: bigint,
    timestamps: BigInt64Array,
    payload: Buffer,
    offsets: Uint32Array,
    memory: Lent,
  ) {
    this.firstSeqNum = firstSeqNum;
    this.count = timestamps.length;
    this.timestamps = timestamps;
    this.#memory = memory;
    this.#payload = payload;
    this.#offsets = offsets;
    const last = firstSeqNum + BigInt(this.count);
    this.#firstSafe = last <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(firstSeqNum) : undefined;
  }

  /** The bytes of memory the chunk holds on to (a pooled class is larger than the object). */
  get bytesHeld(): number {
    return this.#memory ? ChunkMemoryPool.bytesHeld(this.#memory) : 0;
  }

  /**
   * Lets go of the chunk's memory, for the caller to give back: a reader that still holds the
   * chunk (a read-ahead queue) then no longer keeps it alive, and loads the chunk again.
   */
  release(): Lent | undefined {
    const memory = this.#memory;
    this.#memory = undefined;
    this.#payload = EMPTY;
    return memory;
  }

  /**
   * Records [from, to) to serve, from a copy of their bytes; undefined when the chunk was
   * released or its memory has been lent to another chunk since (the cache let this one go):
   * load the chunk again.
   */
  copyRecords(from: number, to: number): ServedRecords | undefined {
    if (this.#memory === undefined || !ChunkMemoryPool.holds(this.#memory)) return undefined;
    const base = this.#offsets[from] as number;
    const copy = Buffer.allocUnsafe((this.#offsets[to] as number) - base);
    this.#payload.copy(copy, 0, base, this.#offsets[to]);
    return { record: (i) => this.#record(copy, base, i) };
  }

  /** Record `i` (decoded and checked at load) from `copy`, the payload's bytes from `base`. */
  #record(copy: Buffer, base: number, i: number): Record__Output {
    const { headers, body } = decodeStoredRecord(
      copy.subarray((this.#offsets[i] as number) - base, (this.#offsets[i + 1] as number) - base),
    );
    const seq =
      this.#firstSafe === undefined
        ? (this.firstSeqNum + BigInt(i)).toString()
        : String(this.#firstSafe + i);
    return {
      seq_num: seq,
      timestamp_ms: (this.timestamps[i] as bigint).toString(),
      body: body as Buffer,
      headers: headers as Record__Output["headers"],
    };
  }
}

/** Records of a chunk as the star's Read returns them, viewing a copy of their bytes. */
export interface ServedRecords {
  record(i: number): Record__Output;
}

/** Checks the object fetched into `memory` and indexes it. */
export function verifyChunk(entry: PlanEntry, memory: Lent): VerifiedChunk {
  const { bytes } = memory;
  const where = `chunk ${entry.cacheKey}`;
  try {
    const size = entry.footerOff + entry.footerLen;
    if (bytes.length !== size) {
      throw new CorruptionError(`object is ${bytes.length} bytes, the plan says ${size}`);
    }
    const footer = decodeFooter(bytes.subarray(entry.footerOff));
    if (footer.firstSeqNum !== entry.firstSeqNum) {
      throw new CorruptionError(
        `footer first_seq_num ${footer.firstSeqNum}, the plan says ${entry.firstSeqNum}`,
      );
    }
    const payload = bytes.subarray(0, entry.footerOff);
    verifyPayload(footer, payload);
    // Every record must decode before any is served; the decoded ones are not kept.
    decodeChunkSlice(footer, payload, 0, footer.count);
    return new VerifiedChunk(
      footer.firstSeqNum,
      BigInt64Array.from(footer.timestamps),
      payload,
      Uint32Array.from(footer.recordOffsets),
      memory,
    );
  } catch (err) {
    if (err instanceof CorruptionError) throw new ChunkFault("corrupt", `${where}: ${err.message}`);
    throw err;
  }
}
