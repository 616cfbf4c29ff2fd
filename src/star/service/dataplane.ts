// nova.v1.DataPlaneService on one star: each verb a thin adapter over the star's functions.

import type { DataPlaneServiceHandlers } from "../../gen/nova/v1/DataPlaneService.ts";
import { guardHandlers } from "../auth/guard.ts";
import { exchangeToken } from "../auth/star-auth.ts";
import type { StarContext } from "../context.ts";
import {
  createBucket,
  deleteBucket,
  listBuckets,
  reconfigureBucketVerb,
} from "../lifecycle/buckets.ts";
import { liveBucket } from "../lifecycle/live-bucket.ts";
import {
  createStream,
  deleteStream,
  getStream,
  listStreams,
  reconfigureStreamVerb,
} from "../lifecycle/streams.ts";
import { appendSessionHandler } from "./append-session.ts";
import { append, checkTail, fence, read, trim } from "./data-verbs.ts";
import { readPlan } from "./read-plan.ts";
import { subscribeHandler } from "./subscribe.ts";
import { unary } from "./unary.ts";

export function dataPlaneHandlers(ctx: StarContext): DataPlaneServiceHandlers {
  return guardHandlers(ctx.auth, {
    Append: unary(ctx, (req) => append(ctx, req)),
    AppendSession: appendSessionHandler(ctx),
    Read: unary(ctx, (req) => read(ctx, req)),
    Subscribe: subscribeHandler(ctx),
    CheckTail: unary(ctx, (req) => checkTail(ctx, req)),
    ReadPlan: unary(ctx, (req) => readPlan(ctx, req)),
    CreateStream: unary(ctx, async (req) => ({
      stream: await createStream(ctx, req.bucket, req.key, req.config, req.creation_token),
    })),
    ReconfigureStream: unary(ctx, async (req) => ({
      stream: await reconfigureStreamVerb(ctx, req.bucket, req.key, req.config),
    })),
    GetStream: unary(ctx, (req) => getStream(ctx, req.bucket, req.key)),
    DeleteStream: unary(ctx, async (req) => {
      await deleteStream(ctx, req.bucket, req.key);
      return {};
    }),
    ListStreams: unary(ctx, (req) =>
      listStreams(ctx, req.bucket, req.prefix, req.start_after, req.limit),
    ),
    Trim: unary(ctx, (req) => trim(ctx, req)),
    Fence: unary(ctx, (req) => fence(ctx, req)),
    CreateBucket: unary(ctx, async (req) => ({ bucket: await createBucket(ctx, req) })),
    GetBucket: unary(ctx, async (req) => ({ bucket: await liveBucket(ctx, req.name) })),
    ListBuckets: unary(ctx, (req) => listBuckets(ctx, req)),
    ReconfigureBucket: unary(ctx, async (req) => ({
      bucket: await reconfigureBucketVerb(ctx, req),
    })),
    DeleteBucket: unary(ctx, async (req) => {
      await deleteBucket(ctx, req.name);
      return {};
    }),
    ExchangeToken: unary(ctx, (req) => exchangeToken(ctx.auth, req)),
  });
}
