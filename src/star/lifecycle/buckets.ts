// Bucket verbs: create (a retry with the creation token converges), get, list, reconfigure,
// delete (tombstones the bucket and its streams; storage is reclaimed in the background).
import type { Bucket__Output } from "../../gen/nova/v1/Bucket.ts";
import type { CreateBucketRequest__Output } from "../../gen/nova/v1/CreateBucketRequest.ts";
import type { ListBucketsRequest__Output } from "../../gen/nova/v1/ListBucketsRequest.ts";
import type { ReconfigureBucketRequest__Output } from "../../gen/nova/v1/ReconfigureBucketRequest.ts";
import type { StarContext } from "../context.ts";
import { alreadyExists, bucketNotFound } from "../errors.ts";
import { checkBucketName, newBucket, reconfigureBucket } from "./config.ts";
import { deleteStreamNow } from "./streams.ts";

export async function liveBucket(ctx: StarContext, name: string): Promise<Bucket__Output> {
  checkBucketName(name);
  const bucket = await ctx.catalog.getBucket(name);
  if (bucket?.deleted_at_unix_ms !== "0") throw bucketNotFound(name);
  return bucket;
}

export function createBucket(
  ctx: StarContext,
  req: CreateBucketRequest__Output,
): Promise<Bucket__Output> {
  checkBucketName(req.name);
  return ctx.locks.run(`bucket/${req.name}`, async () => {
    const existing = await ctx.catalog.getBucket(req.name);
    if (existing && existing.deleted_at_unix_ms === "0") {
      if (req.creation_token !== "" && req.creation_token === existing.creation_token)
        return existing;
      throw alreadyExists(`bucket ${JSON.stringify(req.name)} already exists`);
    }
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

export function reconfigureBucketVerb(
  ctx: StarContext,
  req: ReconfigureBucketRequest__Output,
): Promise<Bucket__Output> {
  return ctx.locks.run(`bucket/${req.name}`, async () => {
    const next = reconfigureBucket(await liveBucket(ctx, req.name), req.config);
    await ctx.catalog.putBucket(next);
    return next;
  });
}

export function deleteBucket(ctx: StarContext, name: string): Promise<void> {
  return ctx.locks.run(`bucket/${name}`, async () => {
    const bucket = await liveBucket(ctx, name);
    await ctx.catalog.putBucket({ ...bucket, deleted_at_unix_ms: String(ctx.now()) });
    for await (const stream of ctx.catalog.streams(name, "")) {
      if (stream.deleted_at_unix_ms === "0") await deleteStreamNow(ctx, stream);
    }
  });
}

export function clampLimit(limit: number, max: number): number {
  return limit === 0 || limit > max ? max : limit;
}
