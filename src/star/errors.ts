// gRPC errors a star answers with: a status code, a message for the human, typed details for
// the program.
import { Metadata, type ServiceError, status } from "@grpc/grpc-js";
import type { Logger } from "pino";
import { type Detail, detailsMetadata, STATUS_DETAILS_KEY } from "../contract/proto/index.ts";
import { ObjectStoreError } from "../platform/objstore/index.ts";

/**
 * In the trailers of every error a star answers: a caller tells a star's own answer (it is up,
 * and said UNAVAILABLE) from its transport's (no connection, a reset, its deadline).
 */
export const ANSWERED_KEY = "nova-star-answered";

export class StarError extends Error implements Partial<ServiceError> {
  readonly code: status;
  readonly details: string;
  readonly metadata: Metadata;
  /** Relayed: the other star answered this itself; false when its transport failed. */
  readonly answered: boolean;

  constructor(code: status, message: string, details: Detail[] = [], answered = true) {
    super(message);
    this.code = code;
    this.details = message;
    this.metadata = details.length > 0 ? detailsMetadata(code, message, details) : new Metadata();
    // A transport failure this star passes on is not its answer either.
    if (answered) this.metadata.set(ANSWERED_KEY, "1");
    this.answered = answered;
  }

  /** Another star's answer passed on as it came: code, message and typed details. */
  static relayed(err: Pick<ServiceError, "code" | "details" | "metadata">): StarError {
    const answered = (err.metadata?.get(ANSWERED_KEY).length ?? 0) > 0;
    const out = new StarError(err.code, err.details, [], answered);
    for (const bin of err.metadata?.get(STATUS_DETAILS_KEY) ?? []) {
      out.metadata.add(STATUS_DETAILS_KEY, bin);
    }
    return out;
  }
}

export const invalidArgument = (message: string, details: Detail[] = []) =>
  new StarError(status.INVALID_ARGUMENT, message, details);
export const bucketNotFound = (bucket: string) =>
  new StarError(status.NOT_FOUND, `bucket ${JSON.stringify(bucket)} does not exist`, [
    { type: "NotFoundDetail", value: { resource: "RESOURCE_BUCKET", bucket, key: "" } },
  ]);
export const streamNotFound = (bucket: string, key: string) =>
  new StarError(
    status.NOT_FOUND,
    `stream ${JSON.stringify(key)} does not exist in bucket ${JSON.stringify(bucket)}`,
    [{ type: "NotFoundDetail", value: { resource: "RESOURCE_STREAM", bucket, key } }],
  );
export const alreadyExists = (message: string) => new StarError(status.ALREADY_EXISTS, message);
export const failedPrecondition = (message: string, details: Detail[] = []) =>
  new StarError(status.FAILED_PRECONDITION, message, details);
export const resourceExhausted = (message: string) =>
  new StarError(status.RESOURCE_EXHAUSTED, message);
export const unavailable = (message: string) => new StarError(status.UNAVAILABLE, message);
export const internal = (message: string) => new StarError(status.INTERNAL, message);

/** Records a call needs are in log objects that cannot be read without losing acked ones. */
export const logDamaged = (
  message: string,
  where: { starId: string; objectKey?: string; streamId?: string; missingSeqNum?: bigint },
) =>
  new StarError(status.UNAVAILABLE, message, [
    {
      type: "LogDamaged",
      value: {
        star_id: where.starId,
        object_key: where.objectKey ?? "",
        stream_id: where.streamId ?? "",
        missing_seq_num: String(where.missingSeqNum ?? 0n),
      },
    },
  ]);

/** A batch after a refused one of an `end_on_refusal` session: it never reached the log. */
export const afterRefusal = () =>
  failedPrecondition("an earlier batch of this session was refused: this one was not appended");

export const seqNumMismatch = (expected: bigint) =>
  failedPrecondition(`match_seq_num does not match: the next seq_num is ${expected}`, [
    { type: "SeqNumMismatch", value: { expected_seq_num: expected.toString() } },
  ]);

export const fencingTokenMismatch = (installed: boolean) =>
  failedPrecondition(
    installed
      ? "fencing token does not match the stream's installed token"
      : "fencing token given but the stream has none installed",
    [{ type: "FencingTokenMismatch", value: { token_installed: installed } }],
  );

/**
 * An append the stream's throughput cap would hold longer than `maxWaitMs`: refused, nothing
 * stored, with when the same batch would go through.
 */
export const throughputExceeded = (
  limitBytesPerSecond: number | string,
  retryAfterMs: number,
  maxWaitMs: number,
) =>
  new StarError(
    status.RESOURCE_EXHAUSTED,
    `the stream's throughput cap (${limitBytesPerSecond} bytes/s) would hold this batch longer than ${maxWaitMs} ms, so nothing of it was appended; retry after ${retryAfterMs} ms, or raise throughput_max_bytes_per_second`,
    [
      {
        type: "ThroughputExceeded",
        value: {
          limit_bytes_per_second: String(limitBytesPerSecond),
          retry_after_ms: String(retryAfterMs),
        },
      },
    ],
  );

export const outOfRange = (tailSeq: bigint, tailTs: bigint) =>
  new StarError(status.OUT_OF_RANGE, `start is beyond the tail (${tailSeq})`, [
    {
      type: "TailDetail",
      value: { tail: { seq_num: tailSeq.toString(), timestamp_ms: tailTs.toString() } },
    },
  ]);

/**
 * Any thrown value as a gRPC error: StarErrors pass through; an object store that is down or
 * slow is UNAVAILABLE (the caller may retry, here or on another star); the rest is INTERNAL,
 * and logged with its stack (the caller only sees the message).
 */
export function toServiceError(err: unknown, log?: Pick<Logger, "warn" | "error">): StarError {
  if (err instanceof StarError) return err;
  if (err instanceof ObjectStoreError && (err.kind === "unavailable" || err.kind === "timeout")) {
    log?.warn({ err }, "object storage unavailable");
    return unavailable(`object storage is unavailable: ${err.message}`);
  }
  log?.error({ err }, "internal error");
  const message = err instanceof Error ? err.message : String(err);
  return internal(`internal error: ${message}`);
}

export const producerSeqGap = (expected: bigint, received: bigint, unknown: boolean) =>
  failedPrecondition(
    unknown
      ? `producer unknown to this stream (new, or forgotten after its idle expiry): its first batch must have seq 0, got ${received}; nothing was appended`
      : `producer seq ${received} leaves a gap: the next seq is ${expected}; nothing was appended`,
    [
      {
        type: "ProducerSeqGap",
        value: {
          expected_seq: expected.toString(),
          received_seq: received.toString(),
          unknown_producer: unknown,
        },
      },
    ],
  );

export const producerSeqStale = (lastSeq: bigint, received: bigint) =>
  failedPrecondition(
    `producer seq ${received} was appended before (the last is ${lastSeq}), too long ago for its position to be remembered; nothing was appended`,
    [{ type: "ProducerSeqStale", value: { last_seq: lastSeq.toString() } }],
  );

export const producerFenced = (current: bigint, received: bigint) =>
  failedPrecondition(
    `producer epoch ${received} is fenced: epoch ${current} has started; nothing was appended`,
    [{ type: "ProducerFenced", value: { current_epoch: current.toString() } }],
  );

export const streamClosed = (tailSeq: bigint, tailTs: bigint) =>
  failedPrecondition(`the stream is closed at ${tailSeq}; nothing was appended`, [
    {
      type: "StreamClosed",
      value: { tail: { seq_num: tailSeq.toString(), timestamp_ms: tailTs.toString() } },
    },
  ]);

export const contentTypeMismatch = (streamType: string, sent: string) =>
  failedPrecondition(
    `content type ${JSON.stringify(sent)} is not the stream's (${JSON.stringify(streamType)}); nothing was appended`,
    [{ type: "ContentTypeMismatch", value: { stream_content_type: streamType } }],
  );

export const writerSeqRegression = (last: string, received: string) =>
  failedPrecondition(
    `writer seq ${JSON.stringify(received)} does not sort above the stream's last, ${JSON.stringify(last)}; nothing was appended`,
    [{ type: "WriterSeqRegression", value: { last_writer_seq: last } }],
  );

export const tooManyProducers = (max: number) =>
  resourceExhausted(
    `no room for a new producer: the stream remembers ${max} (--max-producers-per-stream) or the star's memory for producers is full (--producer-memory-mb); one may start once others are idle past --producer-ttl-ms; nothing was appended`,
  );
