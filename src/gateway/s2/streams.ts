// S2's /v1/streams routes (basin from the s2-basin header or the Host) over nova's streams:
// list, create, get config, reconfigure and delete.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { asObject, checkStreamKey, rejectUnknown, requireDescriptor } from "../translate/index.ts";
import type { Upstream } from "../upstream/index.ts";
import { namesAny, streamConfigToS2, streamSettingsFromS2, streamToStreamInfo } from "./config.ts";
import { requestBasin, s2Call, streamOf } from "./context.ts";
import { s2Invalid } from "./json.ts";
import { listPage, requestToken, sendProvisioned } from "./listing.ts";
import { s2Schemas } from "./schemas.gen.ts";
import { ensureStream } from "./service.ts";

export async function s2StreamRoutes(app: FastifyInstance, opts: { upstream: Upstream }) {
  const { upstream } = opts;
  const config = { resource: "stream" as const };

  app.get(
    "/v1/streams",
    { config: { resource: "bucket" }, schema: s2Schemas.listStreams },
    listStreams,
  );
  app.post("/v1/streams", { config, schema: s2Schemas.createStream }, createStream);
  app.put(
    "/v1/streams/:stream",
    { config, schema: s2Schemas.ensureStream },
    createOrReconfigureStream,
  );
  app.get("/v1/streams/:stream", { config, schema: s2Schemas.getStreamConfig }, getStreamConfig);
  app.patch(
    "/v1/streams/:stream",
    { config, schema: s2Schemas.reconfigureStream },
    reconfigureStream,
  );
  app.delete("/v1/streams/:stream", { config, schema: s2Schemas.deleteStream }, deleteStream);

  async function listStreams(req: FastifyRequest, reply: FastifyReply) {
    const bucket = requestBasin(req);
    const res = await upstream.unary(
      "ListStreams",
      { bucket, ...listPage(req.query, "stream") },
      s2Call(req, reply),
    );
    return { streams: res.streams.map(streamToStreamInfo), has_more: res.next !== "" };
  }

  async function createStream(req: FastifyRequest, reply: FastifyReply) {
    const bucket = requestBasin(req);
    const body = asObject(req.body, "body", s2Invalid);
    rejectUnknown(body, new Set(["stream", "config"]), "", s2Invalid);
    const key = checkStreamKey(body.stream, "stream", s2Invalid);
    const settings = streamSettingsFromS2(body.config, "config", false);
    const call = s2Call(req, reply);
    const res = await upstream.unary(
      "CreateStream",
      {
        bucket,
        key,
        config: settings,
        creation_token: requestToken(req),
      },
      { ...call, bucket, key },
    );
    return reply.code(201).send(streamToStreamInfo(requireDescriptor(res.stream)));
  }

  async function createOrReconfigureStream(req: FastifyRequest, reply: FastifyReply) {
    const address = streamOf(req);
    // S2's EnsureStream body is the StreamConfig itself (or nothing), unlike CreateStream's.
    const { result, stream } = await ensureStream(
      upstream,
      address,
      {
        create: streamSettingsFromS2(req.body, "body", false),
        reconfigure: () => streamSettingsFromS2(req.body, "body", true),
        given: namesAny(req.body),
      },
      requestToken(req),
      s2Call(req, reply),
    );
    return sendProvisioned(reply, result, streamToStreamInfo(stream));
  }

  async function getStreamConfig(req: FastifyRequest, reply: FastifyReply) {
    const address = streamOf(req);
    const res = await upstream.unary("GetStream", address, { ...s2Call(req, reply), ...address });
    return streamConfigToS2(requireDescriptor(res.stream));
  }

  async function reconfigureStream(req: FastifyRequest, reply: FastifyReply) {
    const address = streamOf(req);
    const settings = streamSettingsFromS2(req.body ?? {}, "body", true);
    const res = await upstream.unary(
      "ReconfigureStream",
      { ...address, config: settings },
      { ...s2Call(req, reply), ...address },
    );
    return streamConfigToS2(requireDescriptor(res.stream));
  }

  async function deleteStream(req: FastifyRequest, reply: FastifyReply) {
    const address = streamOf(req);
    await upstream.unary("DeleteStream", address, { ...s2Call(req, reply), ...address });
    return reply.code(202).send();
  }
}
