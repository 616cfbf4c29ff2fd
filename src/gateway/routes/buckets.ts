// /v1/buckets: ListBuckets, CreateBucket, GetBucket, ReconfigureBucket, DeleteBucket.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { routeSchemas } from "../http/index.ts";
import type { Query } from "../translate/index.ts";
import {
  bucketReconfigurationFromJson,
  bucketToJson,
  checkBucketName,
  createBucketFromJson,
  creationToken,
  listBucketsResponseToJson,
  listQueryFromQuery,
  requireDescriptor,
} from "../translate/index.ts";
import type { Upstream } from "../upstream/index.ts";
import { requestContext } from "./context.ts";

const REQUEST_TOKEN = "nova-request-token";

export async function bucketRoutes(app: FastifyInstance, opts: { upstream: Upstream }) {
  const { upstream } = opts;
  const config = { resource: "bucket" as const };
  const bucketParam = (params: unknown) => checkBucketName((params as { bucket: string }).bucket);

  app.get("/v1/buckets", { config, schema: routeSchemas.listBuckets }, listBuckets);
  app.post("/v1/buckets", { config, schema: routeSchemas.createBucket }, createBucket);
  app.get("/v1/buckets/:bucket", { config, schema: routeSchemas.getBucket }, getBucket);
  app.patch(
    "/v1/buckets/:bucket",
    { config, schema: routeSchemas.reconfigureBucket },
    reconfigureBucket,
  );
  app.delete("/v1/buckets/:bucket", { config, schema: routeSchemas.deleteBucket }, deleteBucket);

  async function listBuckets(req: FastifyRequest, reply: FastifyReply) {
    const ctx = requestContext(req, reply);
    const res = await upstream.unary(
      "ListBuckets",
      listQueryFromQuery(req.query as Query),
      ctx.call,
    );
    return listBucketsResponseToJson(res, ctx.int64);
  }

  async function createBucket(req: FastifyRequest, reply: FastifyReply) {
    const ctx = requestContext(req, reply);
    const { name, config: bucketConfig } = createBucketFromJson(req.body);
    const token = creationToken(req.headers, req.raw.rawHeaders, REQUEST_TOKEN);
    const res = await upstream.unary(
      "CreateBucket",
      { name, config: bucketConfig, creation_token: token },
      ctx.call,
    );
    return reply.code(201).send(bucketToJson(requireDescriptor(res.bucket), ctx.int64));
  }

  async function getBucket(req: FastifyRequest, reply: FastifyReply) {
    const ctx = requestContext(req, reply);
    const res = await upstream.unary("GetBucket", { name: bucketParam(req.params) }, ctx.call);
    return bucketToJson(requireDescriptor(res.bucket), ctx.int64);
  }

  async function reconfigureBucket(req: FastifyRequest, reply: FastifyReply) {
    const ctx = requestContext(req, reply);
    const name = bucketParam(req.params);
    const res = await upstream.unary(
      "ReconfigureBucket",
      { name, config: bucketReconfigurationFromJson(req.body) },
      ctx.call,
    );
    return bucketToJson(requireDescriptor(res.bucket), ctx.int64);
  }

  async function deleteBucket(req: FastifyRequest, reply: FastifyReply) {
    const ctx = requestContext(req, reply);
    await upstream.unary("DeleteBucket", { name: bucketParam(req.params) }, ctx.call);
    return reply.code(202).send();
  }
}
