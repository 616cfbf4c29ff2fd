// Object keys for everything a star stores. Stream keys are arbitrary UTF-8 (up to 512 bytes),
// so they are written in lowercase base32hex, which keeps byte order (ListStreams pages in key
// order straight from an object listing), split into segments that fit a file name on stores
// backed by a file system.
import { decodeUtf8Exact } from "../../contract/codec/index.ts";

const ALPHABET = "0123456789abcdefghijklmnopqrstuv";
const SEGMENT = 200;

export function encodeKeySegment(key: Uint8Array): string {
  return segmented(base32hex(key));
}

function base32hex(key: Uint8Array): string {
  let out = "";
  let buffer = 0;
  let bits = 0;
  for (const byte of key) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += ALPHABET[(buffer >> bits) & 31];
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) out += ALPHABET[(buffer << (5 - bits)) & 31];
  return out;
}

function segmented(encoded: string): string {
  const parts: string[] = [];
  for (let i = 0; i < encoded.length; i += SEGMENT) parts.push(encoded.slice(i, i + SEGMENT));
  return parts.join("/");
}

export function decodeKeySegment(encoded: string): Uint8Array {
  const chars = encoded.replaceAll("/", "");
  const out: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const c of chars) {
    const v = ALPHABET.indexOf(c);
    if (v < 0) throw new Error(`bad key encoding ${JSON.stringify(encoded)}`);
    buffer = (buffer << 5) | v;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out.push((buffer >> bits) & 255);
    }
    buffer &= (1 << bits) - 1;
  }
  return Uint8Array.from(out);
}

const utf8 = new TextEncoder();

export const bucketKey = (bucket: string) => `meta/buckets/${bucket}`;
export const BUCKETS_PREFIX = "meta/buckets/";
export const streamsPrefix = (bucket: string) => `meta/streams/${bucket}/`;
export const streamKey = (bucket: string, key: string) =>
  `${streamsPrefix(bucket)}${encodeKeySegment(utf8.encode(key))}`;
/**
 * The start every stream key beginning with `prefix` shares: its whole characters only (the
 * last, partial one also holds bits of what follows the prefix).
 */
export function streamsPrefixOf(bucket: string, prefix: string): string {
  // A prefix ending in the first half of a surrogate pair may begin a key's character: without
  // it, as UTF-8 cannot spell half a character (the caller's own filter does the rest).
  const whole = /[\uD800-\uDBFF]$/.test(prefix) ? prefix.slice(0, -1) : prefix;
  const bytes = utf8.encode(whole);
  const chars = Math.floor((bytes.length * 8) / 5);
  return streamsPrefix(bucket) + segmented(base32hex(bytes).slice(0, chars));
}
export const streamKeyFromObject = (bucket: string, objectKey: string) =>
  decodeUtf8Exact(decodeKeySegment(objectKey.slice(streamsPrefix(bucket).length)));
export const stateKey = (streamId: string) => `state/${streamId}`;
export const chunksPrefix = (streamId: string) => `chunks/${streamId}/`;

/** A star's log objects (docs/storage-layout.md), numbered so a listing returns them in order. */
export const logPrefix = (starId: string) => `log/${starId}/`;
export const logKey = (starId: string, n: bigint) =>
  `${logPrefix(starId)}${n.toString().padStart(20, "0")}`;

/**
 * A star's log numbers carry its lease epoch in their high bits (docs/fleet.md): each epoch
 * writes its own numbers, so nothing a lost epoch still lands can take one of the next.
 * Numbers below 2^40 are epoch 0, the log of a star before leases.
 */
const EPOCH_SHIFT = 40n;
export const firstLogNumber = (epoch: number) => BigInt(epoch) << EPOCH_SHIFT;
export const epochOfLogNumber = (n: bigint) => Number(n >> EPOCH_SHIFT);

export function parseLogKey(starId: string, objectKey: string): bigint | undefined {
  const rest = objectKey.slice(logPrefix(starId).length);
  return objectKey.startsWith(logPrefix(starId)) && /^\d{20}$/.test(rest)
    ? BigInt(rest)
    : undefined;
}

/** What a chunk's object key says about it, so a listing alone recovers a stream's index. */
export interface ChunkName {
  firstSeqNum: bigint;
  count: number;
  footerLength: number;
  contentBytes: number;
  minTimestampMs: bigint;
  maxTimestampMs: bigint;
}

export function chunkKey(streamId: string, c: ChunkName): string {
  const first = c.firstSeqNum.toString().padStart(20, "0");
  return `${chunksPrefix(streamId)}${first}-${c.count}-${c.footerLength}-${c.contentBytes}-${c.minTimestampMs}-${c.maxTimestampMs}`;
}

// The timestamps are int64 and may be negative ("...-12--500--400"): every field before them is
// unsigned, so the "-" that follows a separator can only be a sign.
const CHUNK_NAME = /^(\d{20})-(\d+)-(\d+)-(\d+)-(-?\d+)-(-?\d+)$/;

export function parseChunkKey(streamId: string, objectKey: string): ChunkName | undefined {
  const prefix = chunksPrefix(streamId);
  if (!objectKey.startsWith(prefix)) return undefined;
  const m = CHUNK_NAME.exec(objectKey.slice(prefix.length));
  if (!m) return undefined;
  const [, first, count, footer, content, min, max] = m as unknown as string[];
  return {
    firstSeqNum: BigInt(first as string),
    count: Number(count),
    footerLength: Number(footer),
    contentBytes: Number(content),
    minTimestampMs: BigInt(min as string),
    maxTimestampMs: BigInt(max as string),
  };
}
