// /v1/buckets/{bucket}/streams: ListStreams, CreateStream, GetStream, ReconfigureStream,
// DeleteStream.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { routeSchemas } from "../http/index.ts";
import type { Query } from "../translate/index.ts";
import {
  checkBucketName,
  createStreamFromJson,
  creationToken,
  getStreamResponseToJson,
  listQueryFromQuery,
  listStreamsResponseToJson,
  requireDescriptor,
  streamReconfigurationFromJson,
  streamToJson,
} from "../translate/index.ts";
import type { Upstream } from "../upstream/index.ts";
import { requestContext, streamAddress } from "./context.ts";

export async function streamRoutes(app: FastifyInstance, opts: { upstream: Upstream }) {
  const { upstream } = opts;
  const config = { resource: "stream" as const };
  const base = "/v1/buckets/:bucket/streams";

  app.get(base, { config: { resource: "bucket" }, schema: routeSchemas.listStreams }, listStreams);
  app.post(base, { config, schema: routeSchemas.createStream }, createStream);
  app.get(`${base}/:key`, { config, schema: routeSchemas.getStream }, getStream);
  app.patch(`${base}/:key`, { config, schema: routeSchemas.reconfigureStream }, reconfigureStream);
  app.delete(`${base}/:key`, { config, schema: routeSchemas.deleteStream }, deleteStream);

  async function listStreams(req: FastifyRequest, reply: FastifyReply) {
    const ctx = requestContext(req, reply);
    const bucket = checkBucketName((req.params as { bucket: string }).bucket);
    const res = await upstream.unary(
      "ListStreams",
      { bucket, ...listQueryFromQuery(req.query as Query) },
      ctx.call,
    );
    return listStreamsResponseToJson(res, ctx.int64);
  }

  async function createStream(req: FastifyRequest, reply: FastifyReply) {
    const ctx = requestContext(req, reply);
    const bucket = checkBucketName((req.params as { bucket: string }).bucket);
    const { key, config: streamConfig } = createStreamFromJson(req.body);
    const token = creationToken(req.headers, req.raw.rawHeaders, "nova-request-token");
    const res = await upstream.unary(
      "CreateStream",
      { bucket, key, config: streamConfig, creation_token: token },
      { ...ctx.call, bucket, key },
    );
    return reply.code(201).send(streamToJson(requireDescriptor(res.stream), ctx.int64));
  }

  async function getStream(req: FastifyRequest, reply: FastifyReply) {
    const ctx = requestContext(req, reply);
    const address = streamAddress(req);
    const res = await upstream.unary("GetStream", address, { ...ctx.call, ...address });
    return getStreamResponseToJson(res, ctx.int64);
  }

  async function reconfigureStream(req: FastifyRequest, reply: FastifyReply) {
    const ctx = requestContext(req, reply);
    const address = streamAddress(req);
    const res = await upstream.unary(
      "ReconfigureStream",
      { ...address, config: streamReconfigurationFromJson(req.body) },
      { ...ctx.call, ...address },
    );
    return streamToJson(requireDescriptor(res.stream), ctx.int64);
  }

  async function deleteStream(req: FastifyRequest, reply: FastifyReply) {
    const ctx = requestContext(req, reply);
    const address = streamAddress(req);
    await upstream.unary("DeleteStream", address, { ...ctx.call, ...address });
    return reply.code(202).send();
  }
}
