// A fetched chunk object checked end to end before any of it is served: its length against the
// plan, the footer (trailer, footer CRC, layout), the footer against the plan's numbers, the
// DataCRC over the whole payload, then every record decoded. Any failure is `corrupt`.
//
// Why whole objects: DataCRC covers the whole payload, so a ranged slice cannot be verified
// (docs/storage-layout.md, "Checks a reader makes"), and the gateway never serves bytes it has
// not verified. A chunk is about 1 MiB (batch_max_bytes), a catch-up reads every record of all
// but its first chunk anyway, and one verified object in the cache serves every later reader
// whatever their start.
import { decodeChunkSlice, decodeFooter, verifyPayload } from "../codec/chunk.ts";
import { CorruptionError } from "../codec/errors.ts";
import type { Record__Output } from "../gen/nova/v1/Record.ts";
import { ChunkFault } from "./faults.ts";
import type { PlanEntry } from "./plan-entry.ts";

export interface VerifiedChunk {
  firstSeqNum: bigint;
  /** Records in seq_num order, ready to translate (the shape the star's Read returns). */
  records: Record__Output[];
  /** Record timestamps, for resolving a timestamp start without touching the records. */
  timestamps: bigint[];
  /** Bytes of the object; the records' buffers are views into it. */
  objectBytes: number;
}

export function verifyChunk(entry: PlanEntry, bytes: Buffer): VerifiedChunk {
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
    const decoded = decodeChunkSlice(footer, payload, 0, footer.count);
    const records = decoded.map(
      (r): Record__Output => ({
        seq_num: r.seqNum.toString(),
        timestamp_ms: r.timestampMs.toString(),
        body: r.body as Buffer,
        headers: r.headers as Record__Output["headers"],
      }),
    );
    return {
      firstSeqNum: footer.firstSeqNum,
      records,
      timestamps: footer.timestamps,
      objectBytes: bytes.length,
    };
  } catch (err) {
    if (err instanceof CorruptionError) throw new ChunkFault("corrupt", `${where}: ${err.message}`);
    throw err;
  }
}
