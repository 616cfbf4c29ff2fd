// What the S2 routes ask of nova, one function per route where it takes more than one call:
// appends (data, fence and trim command records), reads bounded in S2's metered bytes, and
// basin ensure. Failures are thrown as they come; the routes' error handler translates them.
import { status } from "@grpc/grpc-js";
import type { Bucket__Output } from "../../gen/nova/v1/Bucket.ts";
import type { BucketConfig } from "../../gen/nova/v1/BucketConfig.ts";
import type { Position__Output } from "../../gen/nova/v1/Position.ts";
import type { Record__Output } from "../../gen/nova/v1/Record.ts";
import type { Stream__Output } from "../../gen/nova/v1/Stream.ts";
import { HttpError, rangeNotSatisfiable, toHttpError } from "../errors/index.ts";
import type { ReadService } from "../history/index.ts";
import { requireDescriptor } from "../translate/index.ts";
import { type CallOptions, StarCallError, type Upstream } from "../upstream/index.ts";
import { planAppend, type S2AppendInput } from "./commands.ts";
import { basinCreationConfig, type StreamSettings } from "./config.ts";
import { fencingTokenMismatch } from "./errors.ts";
import { meteredBytes } from "./metering.ts";
import type { S2ReadQuery } from "./read-query.ts";
import { appendAckToS2, readBatchToS2, type S2AppendAck, type S2ReadBatch } from "./records.ts";
import { cutToSessionBounds } from "./session-bounds.ts";
import { asksForNothing, emptyAtTail } from "./unary-read-rule.ts";

interface Address {
  bucket: string;
  key: string;
}

/** S2's cap on one unary read: 1000 records and 1 MiB metered. */
export const S2_READ_MAX_METERED_BYTES = 1024 * 1024;

/** An S2 append: nova's Append, command records (fence, trim) among its records. */
export async function appendS2(
  upstream: Upstream,
  address: Address,
  input: S2AppendInput,
  call: CallOptions,
): Promise<S2AppendAck> {
  const { batch } = planAppend(input);
  const route = { ...call, ...address };
  try {
    return appendAckToS2(await upstream.unary("Append", { ...address, ...batch }, route));
  } catch (err) {
    throw await withInstalledToken(upstream, address, route, err);
  }
}

/** S2 answers a fencing miss with the installed token; nova's detail only says one is installed. */
export async function withInstalledToken(
  upstream: Upstream,
  address: Address,
  route: CallOptions,
  err: unknown,
): Promise<unknown> {
  const http = toHttpError(err, { resource: "stream" });
  if (!(http instanceof HttpError) || http.code !== "fencing_token_mismatch") return err;
  const stream = await upstream.unary("GetStream", address, route);
  return fencingTokenMismatch(stream.fencing_token);
}

/**
 * The records within S2's bounds: count, and `bytes` (capped at S2's 1 MiB) in metered bytes.
 * The first record comes whatever the cap, unless the client's own `bytes` leaves it out: one
 * written through nova's API may meter a little over 1 MiB (its 1 MiB is of content, S2 meters
 * 8 + 2 per header more), and a page without it would never move past it.
 */
export function cutToS2Bounds(records: Record__Output[], q: Pick<S2ReadQuery, "bytes">) {
  const cap = BigInt(S2_READ_MAX_METERED_BYTES);
  const bytes = q.bytes === undefined || q.bytes > cap ? cap : q.bytes;
  let { take } = cutToSessionBounds(records, { bytes }, { count: 0n, bytes: 0n });
  const first = records[0];
  if (take === 0 && first && (q.bytes === undefined || BigInt(meteredBytes(first)) <= q.bytes)) {
    take = 1;
  }
  return take === records.length ? records : records.slice(0, take);
}

/** One unary page (no `wait`), as S2 would bound it and answer it (unary-read-rule.ts). */
export async function readS2Page(
  reads: ReadService,
  address: Address,
  q: S2ReadQuery,
  call: CallOptions,
): Promise<S2ReadBatch> {
  const nothing = asksForNothing(q);
  // Asking for nothing still checks the start (a 416 past the tail), at the cost of one record.
  const query = nothing ? { ...q.query, count: 1n } : q.query;
  const { records, tail } = (await reads.page(address, query, call)).response;
  const at = { seqNum: BigInt(tail?.seq_num ?? 0), timestampMs: BigInt(tail?.timestamp_ms ?? 0) };
  // S2 checks the start before any limit: a read at the tail is 416 even asking for nothing.
  if (emptyAtTail(q, records.length, at)) {
    throw rangeNotSatisfiable("the read starts at the tail", tail ?? undefined);
  }
  if (nothing) return readBatchToS2([], tail);
  return readBatchToS2(cutToS2Bounds(records, q), tail);
}

/**
 * The stream's tail, as S2's check_tail answers it: a missing stream in a bucket that creates
 * streams on read is created first (a read of it does), as S2 does.
 */
export async function s2Tail(
  upstream: Upstream,
  reads: ReadService,
  address: Address,
  call: CallOptions,
): Promise<Position__Output | null> {
  try {
    return (await upstream.unary("CheckTail", address, { ...call, ...address })).tail;
  } catch (err) {
    if (!(err instanceof StarCallError && err.code === status.NOT_FOUND)) throw err;
  }
  // NOT_FOUND again unless the bucket creates streams on read.
  const fromTail = { start: { tail_offset: "0" }, clamp: false, wait: 0, int64: "number" } as const;
  return (await reads.page(address, fromTail, call)).response.tail;
}

export type ProvisionResult = "created" | "updated" | "noop";

/**
 * S2's ensure (PUT): create; when the resource exists, apply the config given (`updated`) or,
 * with none given, read it (`noop`); either way answer it as it now is.
 */
async function provision<T>(
  resource: "bucket" | "stream",
  create: () => Promise<T>,
  update: (() => Promise<T>) | undefined,
  read: () => Promise<T>,
): Promise<{ result: ProvisionResult; value: T }> {
  try {
    return { result: "created", value: await create() };
  } catch (err) {
    if (toHttpError(err, { resource }).code !== "already_exists") throw err;
  }
  return update
    ? { result: "updated", value: await update() }
    : { result: "noop", value: await read() };
}

/**
 * An ensure's body, read two ways: as a create's config (what it leaves out takes its default),
 * and as a reconfiguration (what it leaves out stays as it is), read only when one is made;
 * `given` when the body names any setting (a null too, which a reconfiguration refuses).
 */
export interface EnsureConfig<T> {
  create: T;
  reconfigure: () => T;
  given: boolean;
}

export async function ensureBasin(
  upstream: Upstream,
  name: string,
  ensure: EnsureConfig<BucketConfig>,
  creationToken: string,
  call: CallOptions,
): Promise<{ result: ProvisionResult; bucket: Bucket__Output }> {
  const config = ensure.create;
  const { result, value } = await provision(
    "bucket",
    () =>
      upstream.unary(
        "CreateBucket",
        { name, config: basinCreationConfig(config), creation_token: creationToken },
        call,
      ),
    ensure.given
      ? () => upstream.unary("ReconfigureBucket", { name, config: ensure.reconfigure() }, call)
      : undefined,
    () => upstream.unary("GetBucket", { name }, call),
  );
  return { result, bucket: requireDescriptor(value.bucket) };
}

export async function ensureStream(
  upstream: Upstream,
  address: Address,
  ensure: EnsureConfig<StreamSettings>,
  creationToken: string,
  call: CallOptions,
): Promise<{ result: ProvisionResult; stream: Stream__Output }> {
  const route = { ...call, ...address };
  const settings = ensure.create;
  const { result, value } = await provision(
    "stream",
    () =>
      upstream.unary(
        "CreateStream",
        { ...address, config: settings, creation_token: creationToken },
        route,
      ),
    ensure.given
      ? () =>
          upstream.unary("ReconfigureStream", { ...address, config: ensure.reconfigure() }, route)
      : undefined,
    () => upstream.unary("GetStream", address, route),
  );
  return { result, stream: requireDescriptor(value.stream) };
}
