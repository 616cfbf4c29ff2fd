// The lookup every bucket-addressed verb starts with: the bucket, unless it is missing or deleted.
import type { Bucket__Output } from "../../gen/nova/v1/Bucket.ts";
import type { StarContext } from "../context.ts";
import { bucketNotFound } from "../errors.ts";
import { checkBucketName } from "./config.ts";

export async function liveBucket(ctx: StarContext, name: string): Promise<Bucket__Output> {
  checkBucketName(name);
  const bucket = await ctx.catalog.getBucket(name);
  if (bucket?.deleted_at_unix_ms !== "0") throw bucketNotFound(name);
  return bucket;
}
