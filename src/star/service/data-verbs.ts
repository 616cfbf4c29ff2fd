// The unary data verbs: Append, Read, CheckTail, Trim, Fence. All but Read are the stream
// leader's (NotOwner elsewhere); Read is served by every member (follower-read.ts).

import { sameMediaType } from "../../contract/media-type.ts";
import { MAX_WRITER_SEQ_BYTES } from "../../contract/wire-limits.ts";
import type { AppendRequest__Output } from "../../gen/nova/v1/AppendRequest.ts";
import type { AppendResponse } from "../../gen/nova/v1/AppendResponse.ts";
import type { CheckTailRequest__Output } from "../../gen/nova/v1/CheckTailRequest.ts";
import type { CheckTailResponse } from "../../gen/nova/v1/CheckTailResponse.ts";
import type { FenceRequest__Output } from "../../gen/nova/v1/FenceRequest.ts";
import type { FenceResponse } from "../../gen/nova/v1/FenceResponse.ts";
import type { ReadRequest__Output } from "../../gen/nova/v1/ReadRequest.ts";
import type { ReadResponse } from "../../gen/nova/v1/ReadResponse.ts";
import type { TrimRequest__Output } from "../../gen/nova/v1/TrimRequest.ts";
import type { TrimResponse } from "../../gen/nova/v1/TrimResponse.ts";
import { producerClaim } from "../append/producer-claim.ts";
import { validateBatch } from "../append/validate-batch.ts";
import type { StarContext } from "../context.ts";
import { contentTypeMismatch, invalidArgument } from "../errors.ts";
import { requireLeader } from "../fleet/ownership.ts";
import {
  liveStream,
  resolveDescriptor,
  resolveLedDescriptor,
  withLedLog,
} from "../lifecycle/streams.ts";
import { clampLimit } from "../limits.ts";
import type { StreamLog } from "../stream/stream-log.ts";
import { refuseOverCap } from "./append-guard.ts";
import { followerRead } from "./follower-read.ts";
import { aboveTrim, resolveStart } from "./read-start.ts";
import { appendResponse, position, record } from "./wire.ts";

export function checkFencingToken(ctx: StarContext, token: string | undefined): void {
  if (token !== undefined && Buffer.byteLength(token) > ctx.limits.maxFencingTokenBytes) {
    throw invalidArgument(
      `fencing_token is ${Buffer.byteLength(token)} bytes, at most ${ctx.limits.maxFencingTokenBytes} allowed`,
    );
  }
}

export async function append(
  ctx: StarContext,
  req: AppendRequest__Output,
): Promise<AppendResponse> {
  refuseOverCap(req);
  const arrivalMs = BigInt(ctx.now());
  const stream = await resolveLedDescriptor(ctx, req.bucket, req.key, "append");
  return withLedLog(ctx, stream, (log) => appendTo(ctx, log, req, arrivalMs));
}

async function appendTo(
  ctx: StarContext,
  log: StreamLog,
  req: AppendRequest__Output,
  arrivalMs: bigint,
): Promise<AppendResponse> {
  checkFencingToken(ctx, req.fencing_token);
  // A closed stream answers as closed (or a producer's duplicate) before any type mismatch.
  const type = log.descriptor.content_type;
  if (req.content_type !== "" && !log.sealed && !sameMediaType(type, req.content_type)) {
    throw contentTypeMismatch(type, req.content_type);
  }
  const producer = producerClaim(req.producer);
  // Closing with no records is idempotent by itself: a producer stamp's seq adds nothing to it,
  // but a fenced epoch is refused.
  if (req.close && req.records.length === 0) {
    if (req.match_seq_num !== undefined) {
      throw invalidArgument(
        "match_seq_num needs records: a close without records has none to match",
      );
    }
    return appendResponse(await log.seal(req.fencing_token, producer));
  }
  const batch = validateBatch(req.records, log.descriptor.timestamping_mode, ctx.limits);
  const ack = await log.append(batch, {
    arrivalMs,
    matchSeqNum: req.match_seq_num === undefined ? undefined : BigInt(req.match_seq_num),
    fencingToken: req.fencing_token,
    producer,
    close: req.close,
    ...(req.writer_seq === "" ? {} : { writerSeq: checkWriterSeq(req.writer_seq) }),
  });
  return appendResponse(ack);
}

export async function read(ctx: StarContext, req: ReadRequest__Output): Promise<ReadResponse> {
  const stream = await resolveDescriptor(ctx, req.bucket, req.key, "read");
  if (!ctx.fleet.leads(req.bucket, req.key)) return followerRead(ctx, stream, req);
  // Not from memory while its lease may have lapsed (withLedLog checks it): another member may
  // lead (and trim) it now.
  return withLedLog(ctx, stream, (log) => readFrom(ctx, log, req));
}

async function readFrom(
  ctx: StarContext,
  log: StreamLog,
  req: ReadRequest__Output,
): Promise<ReadResponse> {
  const start = await resolveStart(log, req);
  const records = await log.read(start, {
    maxRecords: clampLimit(req.count, ctx.limits.readPageRecords),
    maxBytes: clampLimit(Number(req.bytes), ctx.limits.readPageBytes),
    untilMs: req.until_ms === undefined ? undefined : BigInt(req.until_ms),
  });
  const end =
    records.length > 0 ? (records.at(-1)?.seqNum ?? 0n) + 1n : aboveTrim(start, log.trimPoint);
  return {
    records: records.map(record),
    tail: position(log.tail),
    closed: log.sealed && end >= log.tail.seqNum,
  };
}

/** Never creates: a stream that does not exist is NOT_FOUND. */
export async function checkTail(
  ctx: StarContext,
  req: CheckTailRequest__Output,
): Promise<CheckTailResponse> {
  requireLeader(ctx, req.bucket, req.key);
  const stream = await liveStream(ctx, req.bucket, req.key);
  return withLedLog(ctx, stream, async (log) => ({
    tail: position(log.tail),
    closed: log.sealed,
  }));
}

export async function trim(ctx: StarContext, req: TrimRequest__Output): Promise<TrimResponse> {
  requireLeader(ctx, req.bucket, req.key);
  const stream = await liveStream(ctx, req.bucket, req.key);
  if (req.point === undefined) throw invalidArgument("trim needs a point: seq_num or timestamp_ms");
  const { point } = req;
  return withLedLog(ctx, stream, async (log) => {
    const seq =
      point === "seq_num"
        ? BigInt(req.seq_num ?? "0")
        : await log.seqForTimestamp(BigInt(req.timestamp_ms ?? "0"));
    await log.trimTo(seq);
    ctx.background(`reclaim trimmed chunks of ${stream.stream_id}`, () => log.reclaim());
    return {};
  });
}

export async function fence(ctx: StarContext, req: FenceRequest__Output): Promise<FenceResponse> {
  requireLeader(ctx, req.bucket, req.key);
  const stream = await liveStream(ctx, req.bucket, req.key);
  checkFencingToken(ctx, req.fencing_token);
  return withLedLog(ctx, stream, async (log) => ({
    tail: position(await log.fence(req.fencing_token)),
  }));
}

function checkWriterSeq(seq: string): string {
  const bytes = Buffer.byteLength(seq);
  if (bytes > MAX_WRITER_SEQ_BYTES) {
    throw invalidArgument(`writer_seq is ${bytes} bytes; at most ${MAX_WRITER_SEQ_BYTES}`);
  }
  return seq;
}
