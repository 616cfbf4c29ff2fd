// A ReadPlan entry as the reader uses it: where the chunk object is, its layout numbers checked
// to be integers the reader can index with, and the key that names the object in the cache.
import type { ReadPlanEntry__Output } from "../../gen/nova/v1/ReadPlanEntry.ts";

export type ChunkLocation = { url: string } | { bucket: string; key: string };

export interface PlanEntry {
  location: ChunkLocation;
  footerOff: number;
  footerLen: number;
  payloadBytes: number;
  firstSeqNum: bigint;
  /** The chunk's first record's timestamp (they never decrease). */
  minTimestampMs: bigint;
  /**
   * The object's identity. A presigned URL changes with every plan (date, signature), so its
   * query string is left out: the same chunk vended twice is one cache entry.
   */
  cacheKey: string;
}

/** A plan the star answered that the reader cannot use: the read goes through Read instead. */
export class BadPlanError extends Error {
  override readonly name = "BadPlanError";
}

function safeInt(value: string, field: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0) throw new BadPlanError(`entry ${field} is ${value}`);
  return n;
}

export function planEntry(e: ReadPlanEntry__Output): PlanEntry {
  const footerOff = safeInt(e.footer_off, "footer_off");
  const footerLen = safeInt(String(e.footer_len), "footer_len");
  const payloadBytes = safeInt(e.payload_bytes, "payload_bytes");
  if (payloadBytes !== footerOff) {
    throw new BadPlanError(
      `entry payload_bytes ${payloadBytes} differs from footer_off ${footerOff}`,
    );
  }
  let location: ChunkLocation;
  let identity: string;
  if (e.location === "url" && e.url) {
    let url: URL;
    try {
      url = new URL(e.url);
    } catch {
      throw new BadPlanError("entry url is not a URL");
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new BadPlanError(`entry url scheme ${url.protocol} is not http(s)`);
    }
    location = { url: e.url };
    identity = `${url.origin}${url.pathname}`;
  } else if (e.location === "object" && e.object?.storage_bucket && e.object.object_key) {
    location = { bucket: e.object.storage_bucket, key: e.object.object_key };
    identity = `s3://${e.object.storage_bucket}/${e.object.object_key}`;
  } else {
    throw new BadPlanError("entry has neither a url nor an object location");
  }
  const firstSeqNum = BigInt(e.first_seq_num);
  return {
    location,
    footerOff,
    footerLen,
    payloadBytes,
    firstSeqNum,
    minTimestampMs: BigInt(e.min_timestamp_ms),
    cacheKey: `${identity}#${firstSeqNum}:${footerOff}:${footerLen}`,
  };
}
