// nova.v1.DataPlaneService on one star: each verb a thin adapter over the star's functions.

import type { DataPlaneServiceHandlers } from "../../gen/nova/v1/DataPlaneService.ts";
import { guardHandlers } from "../auth/guard.ts";
import { exchangeToken } from "../auth/star-auth.ts";
import type { StarContext } from "../context.ts";
import {
  createBucket,
  deleteBucket,
  listBuckets,
  liveBucket,
  reconfigureBucketVerb,
} from "../lifecycle/buckets.ts";
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
    Append: unary((req) => append(ctx, req)),
    AppendSession: appendSessionHandler(ctx),
    Read: unary((req) => read(ctx, req)),
    Subscribe: subscribeHandler(ctx),
    CheckTail: unary((req) => checkTail(ctx, req)),
    ReadPlan: unary((req) => readPlan(ctx, req)),
    CreateStream: unary(async (req) => ({
      stream: await createStream(ctx, req.bucket, req.key, req.config, req.creation_token),
    })),
    ReconfigureStream: unary(async (req) => ({
      stream: await reconfigureStreamVerb(ctx, req.bucket, req.key, req.config),
    })),
    GetStream: unary((req) => getStream(ctx, req.bucket, req.key)),
    DeleteStream: unary(async (req) => {
      await deleteStream(ctx, req.bucket, req.key);
      return {};
    }),
    ListStreams: unary((req) =>
      listStreams(ctx, req.bucket, req.prefix, req.start_after, req.limit),
    ),
    Trim: unary((req) => trim(ctx, req)),
    Fence: unary((req) => fence(ctx, req)),
    CreateBucket: unary(async (req) => ({ bucket: await createBucket(ctx, req) })),
    GetBucket: unary(async (req) => ({ bucket: await liveBucket(ctx, req.name) })),
    ListBuckets: unary((req) => listBuckets(ctx, req)),
    ReconfigureBucket: unary(async (req) => ({ bucket: await reconfigureBucketVerb(ctx, req) })),
    DeleteBucket: unary(async (req) => {
      await deleteBucket(ctx, req.name);
      return {};
    }),
    ExchangeToken: unary((req) => exchangeToken(ctx.auth, req)),
  });
}
