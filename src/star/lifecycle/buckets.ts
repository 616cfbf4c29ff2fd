// Bucket verbs: create (a retry with the creation token converges), get, list, reconfigure,
// delete (deletes the bucket's streams, then tombstones it; storage is reclaimed in the
// background). In a fleet one member, picked by rendezvous hashing of the bucket name, writes a
// bucket's descriptor: the others pass bucket writes on to it (docs/fleet.md).
import { status } from "@grpc/grpc-js";
import type { Bucket__Output } from "../../gen/nova/v1/Bucket.ts";
import type { CreateBucketRequest__Output } from "../../gen/nova/v1/CreateBucketRequest.ts";
import type { ListBucketsRequest__Output } from "../../gen/nova/v1/ListBucketsRequest.ts";
import type { ReconfigureBucketRequest__Output } from "../../gen/nova/v1/ReconfigureBucketRequest.ts";
import type { Stream__Output } from "../../gen/nova/v1/Stream.ts";
import type { StarContext } from "../context.ts";
import { alreadyExists, bucketNotFound } from "../errors.ts";
import { currentCaller } from "../fleet/caller.ts";
import { callMember } from "../fleet/forward.ts";
import { bucketWriter } from "../fleet/ownership.ts";
import { clampLimit } from "../limits.ts";
import { checkBucketName, checkCreationToken, newBucket, reconfigureBucket } from "./config.ts";
import { isRetryOf, tokenClash } from "./creation.ts";
import { liveBucket } from "./live-bucket.ts";
import { deleteStream } from "./streams.ts";

export async function createBucket(
  ctx: StarContext,
  req: CreateBucketRequest__Output,
): Promise<Bucket__Output> {
  checkBucketName(req.name);
  checkCreationToken(req.creation_token);
  const writer = bucketWriter(ctx, req.name);
  if (writer) {
    const { bucket } = await callMember(ctx, writer, "CreateBucket", {
      name: req.name,
      config: req.config ?? undefined,
      creation_token: req.creation_token,
    });
    return rememberBucket(ctx, bucket, writer.name);
  }
  return ctx.locks.take(`bucket/${req.name}`, async () => {
    const existing = await ctx.catalog.getBucket(req.name);
    if (existing && existing.deleted_at_unix_ms === "0") {
      if (isRetryOf(existing, req.creation_token, req.config)) return existing;
      throw alreadyExists(
        `bucket ${JSON.stringify(req.name)} already exists${tokenClash(existing, req.creation_token)}`,
      );
    }
    // What a delete left of the old bucket's streams (its sweep failed part way) must not come
    // back in the new one.
    if (existing && !existing.streams_swept) await deleteStreamsOf(ctx, req.name);
    const bucket = newBucket(req.name, req.config, req.creation_token, ctx.now());
    await ctx.catalog.putBucket(bucket);
    return bucket;
  });
}

export async function listBuckets(
  ctx: StarContext,
  req: ListBucketsRequest__Output,
): Promise<{ buckets: Bucket__Output[]; next: string }> {
  const limit = clampLimit(req.limit, ctx.limits.listLimit);
  const page = await ctx.catalog.listBuckets(req.prefix, req.start_after, limit);
  return { buckets: page.items, next: page.next };
}

export async function reconfigureBucketVerb(
  ctx: StarContext,
  req: ReconfigureBucketRequest__Output,
): Promise<Bucket__Output> {
  checkBucketName(req.name);
  const writer = bucketWriter(ctx, req.name);
  if (writer) {
    const { bucket } = await callMember(ctx, writer, "ReconfigureBucket", {
      name: req.name,
      config: req.config ?? undefined,
    });
    return rememberBucket(ctx, bucket, writer.name);
  }
  return ctx.locks.take(`bucket/${req.name}`, async () => {
    const next = reconfigureBucket(await liveBucket(ctx, req.name), req.config);
    await ctx.catalog.putBucket(next);
    return next;
  });
}

/**
 * Idempotent: a tombstoned bucket deletes again quietly (its streams swept again when the last
 * sweep failed part way); one that never existed is NOT_FOUND.
 */
export async function deleteBucket(ctx: StarContext, name: string): Promise<void> {
  checkBucketName(name);
  const writer = bucketWriter(ctx, name);
  if (writer) {
    await callMember(ctx, writer, "DeleteBucket", { name });
    await ctx.catalog.getBucket(name, { fresh: true });
    return;
  }
  return ctx.locks.take(`bucket/${name}`, async () => {
    const bucket = await ctx.catalog.getBucket(name);
    if (!bucket) throw bucketNotFound(name);
    if (bucket.streams_swept) return;
    // The tombstone first: no stream is created in the bucket from then on (a create that
    // raced it undoes itself, streams.ts), so the sweep's listing holds every stream left.
    const tombstone =
      bucket.deleted_at_unix_ms === "0"
        ? { ...bucket, deleted_at_unix_ms: String(ctx.now()) }
        : bucket;
    if (tombstone !== bucket) await ctx.catalog.putBucket(tombstone);
    await deleteStreamsOf(ctx, name);
    // Every stream tombstone the name ever had stays listed: said once, not listed again.
    await ctx.catalog.putBucket({ ...tombstone, streams_swept: true });
  });
}

/** Deletes every live stream of a bucket, each by its leader under its stream lock. */
async function deleteStreamsOf(ctx: StarContext, name: string): Promise<void> {
  // From the store in a fleet: another member may have written a descriptor since it was cached.
  const opts = { fresh: ctx.lease !== undefined };
  for await (const stream of ctx.catalog.streams(name, "", "", opts)) {
    if (stream.deleted_at_unix_ms === "0") await deleteBucketStream(ctx, stream);
  }
}

async function deleteBucketStream(ctx: StarContext, stream: Stream__Output): Promise<void> {
  const leader = ctx.fleet.leaderOf(stream.bucket, stream.key);
  if (leader === ctx.fleet.self) {
    await deleteStream(ctx, stream.bucket, stream.key).catch(goneAnyway);
    return;
  }
  // DeleteBucket needs admin on the bucket, DeleteStream create on the stream: the leader is
  // handed a token for what this delete already allows, not the caller's, which may lack create.
  const metadata = currentCaller()?.metadata;
  const authorization =
    ctx.auth && metadata
      ? ctx.auth.delegate(metadata, [
          { action: "create", resource: { bucket: stream.bucket, prefix: stream.key } },
        ])
      : undefined;
  await callMember(
    ctx,
    leader,
    "DeleteStream",
    { bucket: stream.bucket, key: stream.key },
    authorization,
  ).catch(goneAnyway);
}

/** Deleted meanwhile, or the listing's descriptor was stale: gone either way. */
function goneAnyway(err: unknown): void {
  if ((err as { code?: number }).code !== status.NOT_FOUND) throw err;
}

function rememberBucket(
  ctx: StarContext,
  bucket: Bucket__Output | null,
  writer: string,
): Bucket__Output {
  if (!bucket) throw new Error(`star ${writer} wrote a bucket but answered none`);
  ctx.catalog.rememberBucket(bucket);
  return bucket;
}
