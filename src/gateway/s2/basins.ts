// S2's /v1/basins routes over nova's buckets: list, create, ensure (PUT), get config,
// reconfigure and delete.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { BucketConfig } from "../../gen/nova/v1/BucketConfig.ts";
import { asObject, asString, rejectUnknown, requireDescriptor } from "../translate/index.ts";
import type { Upstream } from "../upstream/index.ts";
import {
  basinCreationConfig,
  bucketConfigFromS2,
  bucketToBasinInfo,
  bucketToS2Config,
  cannotReset,
  checkBasinName,
  isBasinName,
  namesAny,
} from "./config.ts";
import { s2Call } from "./context.ts";
import { s2Invalid } from "./json.ts";
import { listPage, requestToken, sendProvisioned } from "./listing.ts";
import { s2Schemas } from "./schemas.gen.ts";
import { ensureBasin } from "./service.ts";

export async function basinRoutes(app: FastifyInstance, opts: { upstream: Upstream }) {
  const { upstream } = opts;
  const config = { resource: "bucket" as const };
  const basinParam = (params: unknown) =>
    checkBasinName((params as { basin: string }).basin, "basin", "bad_path");

  app.get("/v1/basins", { config, schema: s2Schemas.listBasins }, listBasins);
  app.post("/v1/basins", { config, schema: s2Schemas.createBasin }, createBasin);
  app.put("/v1/basins/:basin", { config, schema: s2Schemas.ensureBasin }, createOrReconfigureBasin);
  app.get("/v1/basins/:basin", { config, schema: s2Schemas.getBasinConfig }, getBasinConfig);
  app.patch("/v1/basins/:basin", { config, schema: s2Schemas.reconfigureBasin }, reconfigureBasin);
  app.delete("/v1/basins/:basin", { config, schema: s2Schemas.deleteBasin }, deleteBasin);

  /**
   * Buckets without an S2 name are left out: S2's paths could not name them. A page that held
   * only those is followed by the next, so a page with more to come is never empty (a client
   * pages from the last name it got).
   */
  async function listBasins(req: FastifyRequest, reply: FastifyReply) {
    const page = listPage(req.query, "basin");
    for (;;) {
      const res = await upstream.unary("ListBuckets", page, s2Call(req, reply));
      const basins = res.buckets.filter((b) => isBasinName(b.name)).map(bucketToBasinInfo);
      if (basins.length > 0 || res.next === "") return { basins, has_more: res.next !== "" };
      page.start_after = res.next;
    }
  }

  async function createBasin(req: FastifyRequest, reply: FastifyReply) {
    const body = asObject(req.body, "body", s2Invalid);
    rejectUnknown(body, new Set(["basin", "config", "location"]), "", s2Invalid);
    const name = checkBasinName(body.basin, "basin", "invalid");
    const bucketConfig = bucketConfigFromS2(body.config, "config", false);
    setLocation(bucketConfig, body.location);
    const res = await upstream.unary(
      "CreateBucket",
      { name, config: basinCreationConfig(bucketConfig), creation_token: requestToken(req) },
      s2Call(req, reply),
    );
    return reply.code(201).send(bucketToBasinInfo(requireDescriptor(res.bucket)));
  }

  async function createOrReconfigureBasin(req: FastifyRequest, reply: FastifyReply) {
    const name = basinParam(req.params);
    const body = req.body === undefined ? {} : asObject(req.body, "body", s2Invalid);
    rejectUnknown(body, new Set(["config", "location"]), "", s2Invalid);
    const configFrom = (partial: boolean) => {
      const config = bucketConfigFromS2(body.config, "config", partial);
      setLocation(config, body.location, partial);
      return config;
    };
    const { result, bucket } = await ensureBasin(
      upstream,
      name,
      {
        create: configFrom(false),
        reconfigure: () => configFrom(true),
        given: namesAny(body.config) || body.location !== undefined,
      },
      requestToken(req),
      s2Call(req, reply),
    );
    return sendProvisioned(reply, result, bucketToBasinInfo(bucket));
  }

  async function getBasinConfig(req: FastifyRequest, reply: FastifyReply) {
    const res = await upstream.unary(
      "GetBucket",
      { name: basinParam(req.params) },
      s2Call(req, reply),
    );
    return bucketToS2Config(requireDescriptor(res.bucket));
  }

  async function reconfigureBasin(req: FastifyRequest, reply: FastifyReply) {
    const name = basinParam(req.params);
    const res = await upstream.unary(
      "ReconfigureBucket",
      { name, config: bucketConfigFromS2(req.body ?? {}, "body", true) },
      s2Call(req, reply),
    );
    return bucketToS2Config(requireDescriptor(res.bucket));
  }

  async function deleteBasin(req: FastifyRequest, reply: FastifyReply) {
    await upstream.unary("DeleteBucket", { name: basinParam(req.params) }, s2Call(req, reply));
    return reply.code(202).send();
  }
}

/**
 * S2's `location` (a string; null or absent: the default) into the bucket's config; a null on a
 * reconfiguration is refused, as every null is.
 */
function setLocation(config: BucketConfig, location: unknown, partial = false): void {
  if (location === null && partial) throw cannotReset("location");
  if (location === undefined || location === null) return;
  config.location = asString(location, "location", s2Invalid);
}
