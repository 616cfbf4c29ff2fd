// The idempotent-producer headers of an append (docs/producers.md): all three or none; the id 1
// to 128 characters, epoch and seq uint64 decimals read exactly. In an NDJSON session the seq
// names the first line's batch and line n gets seq + n.
import { badHeader, invalidArgument } from "../errors/index.ts";
import { type Headers, singleHeader, utf8HeaderText } from "./header-text.ts";
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
  const id = singleHeader(headers, rawHeaders, PRODUCER_ID_HEADER);
  const epoch = singleHeader(headers, rawHeaders, PRODUCER_EPOCH_HEADER);
  const seq = singleHeader(headers, rawHeaders, PRODUCER_SEQ_HEADER);
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
