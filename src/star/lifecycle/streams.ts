// Stream verbs: create (unset fields take the bucket's defaults; creation_token converges a
// retry), get, list, reconfigure (applied live to an open log), delete (idempotent tombstone,
// background reclaim), and resolving a stream for the data verbs, creating it on first use
// where the bucket allows. In a fleet the stream's leader alone writes its descriptor: a create
// on another member is passed on to it; reconfigure and delete answer NotOwner elsewhere.
import { randomUUID } from "node:crypto";
import type { Bucket__Output } from "../../gen/nova/v1/Bucket.ts";
import type { Stream__Output } from "../../gen/nova/v1/Stream.ts";
import type { StreamConfig__Output } from "../../gen/nova/v1/StreamConfig.ts";
import type { StreamReconfiguration__Output } from "../../gen/nova/v1/StreamReconfiguration.ts";
import type { StarContext } from "../context.ts";
import { alreadyExists, bucketNotFound, streamNotFound } from "../errors.ts";
import { callMember, isForwarded } from "../fleet/forward.ts";
import { requireLeader, streamWriter } from "../fleet/ownership.ts";
import { clampLimit } from "../limits.ts";
import { chunksPrefix } from "../storage/keys.ts";
import { agedForDeleteOnEmpty, type StreamLog } from "../stream/stream-log.ts";
import {
  checkBucketName,
  checkCreationToken,
  checkStreamKey,
  newStream,
  reconfigureStream,
} from "./config.ts";
import { isRetryOf, tokenClash } from "./creation.ts";
import { hasExpired } from "./expiry.ts";
import { liveBucket } from "./live-bucket.ts";

const lockKey = (bucket: string, key: string) => `stream/${bucket}/${key}`;

export function createStream(
  ctx: StarContext,
  bucketName: string,
  key: string,
  config: StreamConfig__Output | null,
  creationToken: string,
): Promise<Stream__Output> {
  checkStreamKey(key);
  checkCreationToken(creationToken);
  const writer = streamWriter(ctx, bucketName, key);
  if (writer) {
    return callMember(ctx, writer, "CreateStream", {
      bucket: bucketName,
      key,
      config: config ?? undefined,
      creation_token: creationToken,
    }).then(({ stream }) => {
      if (!stream) throw new Error(`star ${writer.name} created a stream but answered none`);
      ctx.catalog.rememberStream(stream);
      return stream;
    });
  }
  return ctx.locks.take(lockKey(bucketName, key), async () => {
    // Again once the lock is had, as reconfigure does: a lapsed lease moves the one writer.
    requireLeader(ctx, bucketName, key);
    const bucket = await liveBucket(ctx, bucketName);
    const existing = await ctx.catalog.getStream(bucketName, key);
    if (existing && existing.deleted_at_unix_ms === "0" && expiredHere(ctx, existing)) {
      await deleteStreamNow(ctx, existing);
    } else if (existing && existing.deleted_at_unix_ms === "0") {
      if (isRetryOf(existing, creationToken, config)) return existing;
      throw alreadyExists(
        `stream ${JSON.stringify(key)} already exists in bucket ${JSON.stringify(bucketName)}${tokenClash(existing, creationToken)}`,
      );
    }
    const stream = newStream(bucket, key, config, creationToken, randomUUID(), ctx.now());
    await ctx.catalog.putStream(stream);
    await undoIfBucketGone(ctx, bucket, stream);
    ctx.registry.created(stream);
    return stream;
  });
}

/**
 * A DeleteBucket tombstones the bucket and then deletes the streams it lists: a stream written
 * after that listing would outlive its bucket and come back in a bucket made again under the
 * name. So the bucket is read again after the write (from the store, in a fleet): still the
 * same live bucket, and the listing, which starts after the tombstone, sees the stream; else
 * the stream is deleted again and the create answers as for a missing bucket.
 */
async function undoIfBucketGone(
  ctx: StarContext,
  bucket: Bucket__Output,
  stream: Stream__Output,
): Promise<void> {
  const now = await ctx.catalog.getBucket(bucket.name, { fresh: ctx.lease !== undefined });
  if (now?.deleted_at_unix_ms === "0" && sameBucket(now, bucket)) return;
  await deleteStreamNow(ctx, stream);
  throw bucketNotFound(bucket.name);
}

/** The same bucket, not one made again under its name since. */
function sameBucket(a: Bucket__Output, b: Bucket__Output): boolean {
  return a.created_at_unix_ms === b.created_at_unix_ms && a.creation_token === b.creation_token;
}

/** The live descriptor of a stream, or NOT_FOUND naming the bucket or the stream. */
export async function liveStream(
  ctx: StarContext,
  bucket: string,
  key: string,
): Promise<Stream__Output> {
  await liveBucket(ctx, bucket);
  checkStreamKey(key);
  const stream = await ctx.catalog.getStream(bucket, key);
  if (stream?.deleted_at_unix_ms !== "0" || expired(ctx, stream)) {
    throw streamNotFound(bucket, key);
  }
  return stream;
}

/** Whether a stream this star leads has expired. */
function expiredHere(ctx: StarContext, stream: Stream__Output): boolean {
  return hasExpired(stream, ctx.uses, ctx.now(), true);
}

/** Whether the stream has expired; when it has and this star leads it, it is deleted soon. */
function expired(ctx: StarContext, stream: Stream__Output): boolean {
  const leads = ctx.fleet.leads(stream.bucket, stream.key);
  if (!hasExpired(stream, ctx.uses, ctx.now(), leads)) return false;
  if (leads) {
    ctx.background(`delete expired stream ${stream.stream_id}`, () => deleteExpired(ctx, stream));
  }
  return true;
}

/**
 * Deletes a stream this star leads that has expired, unless it was deleted or replaced since, or
 * this star no longer leads it (NotOwner then).
 */
export function deleteExpired(ctx: StarContext, stream: Stream__Output): Promise<void> {
  return ctx.locks.take(lockKey(stream.bucket, stream.key), async () => {
    const now = await ctx.catalog.getStream(stream.bucket, stream.key, { fresh: true });
    requireLeader(ctx, stream.bucket, stream.key);
    // As it is now: a use (a session's batch) or a reconfigure may have come since it was judged.
    if (now && !hasExpired(now, ctx.uses, ctx.now(), true)) return;
    if (now?.stream_id === stream.stream_id && now.deleted_at_unix_ms === "0") {
      await deleteStreamNow(ctx, now);
    }
  });
}

/** The descriptor of a stream this star leads (else NotOwner), created on first use if allowed. */
export async function resolveLedDescriptor(
  ctx: StarContext,
  bucket: string,
  key: string,
  createOn?: "append",
): Promise<Stream__Output> {
  requireLeader(ctx, bucket, key);
  return resolveDescriptor(ctx, bucket, key, createOn);
}

/**
 * The open log of `stream`, which this star must still lead. Leadership may move while a call
 * reads the descriptor: a hand-back closes the stream's log, and opening it again would take
 * writes the next leader never replays.
 */
export function openLedLog(ctx: StarContext, stream: Stream__Output): Promise<StreamLog> {
  requireLeader(ctx, stream.bucket, stream.key);
  return ctx.registry.open(stream);
}

/** Runs `use` on the open log of `stream` (as openLedLog), held open while it runs. */
export async function withLedLog<T>(
  ctx: StarContext,
  stream: Stream__Output,
  use: (log: StreamLog) => Promise<T>,
): Promise<T> {
  requireLeader(ctx, stream.bucket, stream.key);
  const { log, release } = await ctx.registry.hold(stream);
  try {
    return await use(log);
  } finally {
    release();
  }
}

/** The live descriptor of a stream, created on first use when `createOn` allows. */
export async function resolveDescriptor(
  ctx: StarContext,
  bucket: string,
  key: string,
  createOn?: "append" | "read",
): Promise<Stream__Output> {
  const b = await liveBucket(ctx, bucket);
  checkStreamKey(key);
  let stream = await ctx.catalog.getStream(bucket, key);
  // An expired stream reads as absent, for the create-on-use rule to decide what comes next.
  if (stream?.deleted_at_unix_ms === "0" && expired(ctx, stream)) stream = undefined;
  if (stream?.deleted_at_unix_ms !== "0") {
    const allowed =
      (createOn === "append" && b.create_stream_on_append) ||
      (createOn === "read" && b.create_stream_on_read);
    if (!allowed) throw streamNotFound(bucket, key);
    stream =
      createOn === "read"
        ? await createOnRead(ctx, bucket, key)
        : await createOrGet(ctx, bucket, key);
  }
  if (ctx.fleet.leads(bucket, key)) ctx.uses.touch(stream, ctx.now());
  return stream;
}

/**
 * A stream created by a read. A member that does not lead it asks the leader for a Read, which
 * creates it there under the same rule: a CreateStream passed on would need the create scope,
 * and creating on read asks only for read (docs/auth.md).
 */
async function createOnRead(
  ctx: StarContext,
  bucket: string,
  key: string,
): Promise<Stream__Output> {
  const leader = streamWriter(ctx, bucket, key);
  if (!leader) return createOrGet(ctx, bucket, key);
  await callMember(ctx, leader, "Read", { bucket, key });
  const stream = await ctx.catalog.getStream(bucket, key, { fresh: true });
  if (stream?.deleted_at_unix_ms !== "0") throw streamNotFound(bucket, key);
  return stream;
}

async function createOrGet(ctx: StarContext, bucket: string, key: string): Promise<Stream__Output> {
  try {
    return await createStream(ctx, bucket, key, null, "");
  } catch (err) {
    // A concurrent first use created it: use that one.
    const stream = await ctx.catalog.getStream(bucket, key, { fresh: true });
    if (stream && stream.deleted_at_unix_ms === "0") return stream;
    throw err;
  }
}

export async function getStream(
  ctx: StarContext,
  bucket: string,
  key: string,
): Promise<{ stream: Stream__Output; fencing_token: string; closed: boolean }> {
  const stream = await liveStream(ctx, bucket, key);
  const log = await ctx.registry.peek(stream.stream_id);
  if (log) return { stream, fencing_token: log.fencingToken, closed: log.sealed };
  const state = await ctx.catalog.getState(stream.stream_id);
  return { stream, fencing_token: state.fencing_token, closed: state.closed === true };
}

export async function listStreams(
  ctx: StarContext,
  bucket: string,
  prefix: string,
  startAfter: string,
  limit: number,
): Promise<{ streams: Stream__Output[]; next: string }> {
  await liveBucket(ctx, bucket);
  const max = clampLimit(limit, ctx.limits.listLimit);
  const streams: Stream__Output[] = [];
  // The listing is under the prefix: a start_after below it, in the keys' byte order, starts it
  // at its beginning (a comparison here would be in UTF-16's order, which differs).
  for await (const s of ctx.catalog.streams(bucket, startAfter, prefix)) {
    if (s.deleted_at_unix_ms !== "0" || !s.key.startsWith(prefix)) continue;
    if (hasExpired(s, ctx.uses, ctx.now(), ctx.fleet.leads(bucket, s.key))) continue;
    if (streams.length === max) return { streams, next: streams[max - 1]?.key ?? "" };
    streams.push(s);
  }
  return { streams, next: "" };
}

export function reconfigureStreamVerb(
  ctx: StarContext,
  bucket: string,
  key: string,
  config: StreamReconfiguration__Output | null,
): Promise<Stream__Output> {
  requireLeader(ctx, bucket, key);
  return ctx.locks.take(lockKey(bucket, key), async () => {
    // Again once the lock is had: a hand-back or a lapsed lease while it waited moves the
    // descriptor's one writer.
    requireLeader(ctx, bucket, key);
    const next = reconfigureStream(await liveStream(ctx, bucket, key), config);
    await ctx.catalog.putStream(next);
    await ctx.registry.reconfigured(next);
    return next;
  });
}

/**
 * Idempotent: a tombstoned stream deletes again quietly; one that never existed is NOT_FOUND.
 * A live stream of a deleted bucket is deleted too: what a DeleteBucket passes on to the
 * stream's leader after tombstoning the bucket.
 */
export function deleteStream(ctx: StarContext, bucket: string, key: string): Promise<void> {
  requireLeader(ctx, bucket, key);
  return ctx.locks.take(lockKey(bucket, key), async () => {
    requireLeader(ctx, bucket, key);
    checkBucketName(bucket);
    // Forwarded by a bucket's sweep: this member's cache may not know the bucket yet.
    const b = await ctx.catalog.getBucket(bucket, { fresh: isForwarded() });
    if (!b) throw bucketNotFound(bucket);
    checkStreamKey(key);
    // From the store for a bucket's sweep (forwarded, or the bucket gone): a cached tombstone
    // may be of the stream before it was made again under another leader.
    const fresh = b.deleted_at_unix_ms !== "0" || isForwarded();
    const stream = await ctx.catalog.getStream(bucket, key, { fresh });
    if (b.deleted_at_unix_ms !== "0" && stream?.deleted_at_unix_ms !== "0") {
      throw bucketNotFound(bucket);
    }
    if (!stream) throw streamNotFound(bucket, key);
    // Deleted already: its reclaim runs again, in case the last one failed or was cut short.
    if (stream.deleted_at_unix_ms !== "0") return reclaimStream(ctx, stream.stream_id);
    await deleteStreamNow(ctx, stream);
  });
}

/** Tombstones a stream, ends its open log, and reclaims its chunks in the background. */
export async function deleteStreamNow(ctx: StarContext, stream: Stream__Output): Promise<void> {
  await ctx.catalog.putStream({ ...stream, deleted_at_unix_ms: String(ctx.now()) });
  ctx.uses.forget(stream.stream_id);
  await ctx.registry.deleted(stream.stream_id, streamNotFound(stream.bucket, stream.key));
  reclaimStream(ctx, stream.stream_id);
}

/** Deletes a deleted stream's chunks and state object, in the background. */
function reclaimStream(ctx: StarContext, streamId: string): void {
  ctx.background(`reclaim stream ${streamId}`, async () => {
    const keys: string[] = [];
    for await (const obj of ctx.chunks.store.listAll(chunksPrefix(streamId))) keys.push(obj.key);
    await ctx.chunks.store.delete(keys);
    await ctx.catalog.deleteState(streamId);
  });
}

/** delete_on_empty: deletes a stream that still holds no records once its queue is through. */
export async function deleteIfEmpty(ctx: StarContext, stream: StreamLog): Promise<void> {
  const { bucket, key, stream_id } = stream.descriptor;
  // Under the stream's lock, from its descriptor as it is now: no reconfigure comes between the
  // look, the vacate and the tombstone (one would put the stream back alive over it).
  const deleted = await ctx.locks.take(lockKey(bucket, key), async () => {
    const now = await ctx.catalog.getStream(bucket, key, { fresh: true });
    if (now?.stream_id !== stream_id || now.deleted_at_unix_ms !== "0") return false;
    if (!agedForDeleteOnEmpty(now, BigInt(ctx.now()))) return false;
    if (!(await stream.vacateIfEmpty())) return false;
    try {
      await deleteStreamNow(ctx, now);
    } catch (err) {
      // Not deleted after all: what the log holds settles if it can (all of it is below the
      // trim point, which the state object holds), and the log leaves the registry either way,
      // so the next use opens the stream again.
      await stream.settle().catch(() => undefined);
      await ctx.registry.close(stream_id);
      throw err;
    }
    return true;
  });
  if (deleted) ctx.log.info({ stream: stream_id }, "empty stream deleted (delete_on_empty)");
}
