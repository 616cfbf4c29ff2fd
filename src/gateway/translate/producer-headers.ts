// The idempotent-producer headers of an append (docs/producers.md): all three or none; the id 1
// to 128 characters, epoch and seq uint64 decimals read exactly. In an NDJSON session the seq
// names the first line's batch and line n gets seq + n.
import { decodeUtf8Exact } from "../../contract/codec/index.ts";
import { badHeader, invalidArgument } from "../errors/index.ts";
import { readExactInt, UINT64 } from "./integers.ts";

export const PRODUCER_ID_HEADER = "nova-producer-id";
export const PRODUCER_EPOCH_HEADER = "nova-producer-epoch";
export const PRODUCER_SEQ_HEADER = "nova-producer-seq";
/** A producer's stamp, sent together (and allowed by CORS). */
export const PRODUCER_HEADERS = [
  PRODUCER_ID_HEADER,
  PRODUCER_EPOCH_HEADER,
  PRODUCER_SEQ_HEADER,
] as const;
/** On an answer to a producer's retry: nothing was appended, the ack is the original's. */
export const PRODUCER_DUPLICATE_HEADER = "nova-producer-duplicate";

export const MAX_PRODUCER_ID_CHARS = 128;

/** The proto's Producer: uint64 values as exact decimal strings. */
export interface ProducerProto {
  id: string;
  epoch: string;
  seq: string;
}

type Headers = Readonly<Record<string, string | string[] | undefined>>;

/**
 * A header's one value. Node joins a repeated header's values with ", " (an id may hold that),
 * so the request's raw name-value list tells one sent twice.
 */
function single(headers: Headers, rawHeaders: readonly string[], name: string): string | undefined {
  const value = headers[name];
  if (value === undefined) return undefined;
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i]?.toLowerCase() === name) count++;
  }
  if (Array.isArray(value) || count > 1) throw badHeader(name, "is given more than once");
  return value;
}

/**
 * A header value as the UTF-8 text the client sent: Node reads header bytes as Latin-1, so
 * "é" sent as UTF-8 arrives as two characters ("Ã©"). Bytes that are not UTF-8 are refused.
 */
export function utf8HeaderText(value: string, name: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range, spelled out
  if (!/[^\x00-\x7f]/.test(value)) return value;
  try {
    return decodeUtf8Exact(Buffer.from(value, "latin1"));
  } catch {
    throw badHeader(name, "is not UTF-8 text");
  }
}

/**
 * A producer id from its header (`name`): UTF-8, 1 to 128 characters, the rule the star keeps
 * (characters, not bytes).
 */
export function producerIdFrom(value: string, name: string): string {
  const text = utf8HeaderText(value, name);
  const chars = [...text].length;
  if (chars < 1 || chars > MAX_PRODUCER_ID_CHARS) {
    throw badHeader(name, `must be 1 to ${MAX_PRODUCER_ID_CHARS} characters, not ${chars}`);
  }
  return text;
}

/** `rawHeaders`: the request's names and values as sent (Node's `rawHeaders`). */
export function producerFromHeaders(
  headers: Headers,
  rawHeaders: readonly string[],
): ProducerProto | undefined {
  const id = single(headers, rawHeaders, PRODUCER_ID_HEADER);
  const epoch = single(headers, rawHeaders, PRODUCER_EPOCH_HEADER);
  const seq = single(headers, rawHeaders, PRODUCER_SEQ_HEADER);
  if (id === undefined && epoch === undefined && seq === undefined) return undefined;
  const names = PRODUCER_HEADERS;
  const missing = names.filter((_, i) => [id, epoch, seq][i] === undefined);
  if (missing.length > 0) {
    throw badHeader(
      missing[0] as string,
      `is missing: a producer sends ${names.join(", ")} together`,
    );
  }
  return {
    id: producerIdFrom(id as string, PRODUCER_ID_HEADER),
    epoch: readExactInt(epoch, UINT64, PRODUCER_EPOCH_HEADER, badHeader).toString(),
    seq: readExactInt(seq, UINT64, PRODUCER_SEQ_HEADER, badHeader).toString(),
  };
}

/** The stamp of an NDJSON session's line `n` (0-based): the first seq plus n. */
export function producerForLine(first: ProducerProto, n: number): ProducerProto {
  const seq = BigInt(first.seq) + BigInt(n);
  if (seq > UINT64.max) {
    throw invalidArgument(PRODUCER_SEQ_HEADER, `line ${n} would take seq ${seq}, past 2^64-1`);
  }
  return { ...first, seq: seq.toString() };
}
