// /v1/buckets/{bucket}/streams/{key}/records and its verbs: Append, Read, CheckTail, Trim, Fence.
import type { FastifyInstance } from "fastify";
import type { AppendAdmission } from "../gateway/admission.ts";
import type { Upstream } from "../gateway/upstream.ts";
import { HttpError } from "../translate/errors.ts";
import { fenceBodyFromJson } from "../translate/fence.ts";
import { tailToJson } from "../translate/position-json.ts";
import type { Query } from "../translate/query-params.ts";
import { parseReadQuery, readRequestFields } from "../translate/read-query.ts";
import {
  type AppendLimits,
  appendAckToJson,
  appendInputFromJson,
  readBatchToJson,
} from "../translate/record-json.ts";
import { trimBodyFromJson } from "../translate/trim.ts";
import { recordFormat, requestContext, streamAddress } from "./context.ts";

export interface RecordRoutesOptions {
  upstream: Upstream;
  admission: AppendAdmission;
  appendLimits: AppendLimits;
  bodyLimit: number;
}

const notYet = (what: string) =>
  new HttpError(501, "unimplemented", `${what} is not served by this gateway version yet`);

export async function recordRoutes(app: FastifyInstance, opts: RecordRoutesOptions) {
  const { upstream, admission } = opts;
  const config = { resource: "stream" as const };
  const base = "/v1/buckets/:bucket/streams/:key";

  app.post(
    `${base}/records`,
    {
      config,
      bodyLimit: opts.bodyLimit,
      // Admit by declared size before the body is read, and release when the response closes.
      preParsing: async (req, reply, payload) => {
        const bytes = Number(req.headers["content-length"] ?? opts.bodyLimit);
        admission.acquire(bytes);
        reply.raw.once("close", () => admission.release(bytes));
        return payload;
      },
    },
    async (req, reply) => {
      const ctx = requestContext(req, reply);
      const address = streamAddress(req);
      const batch = appendInputFromJson(req.body, recordFormat(req), opts.appendLimits);
      const ack = await upstream.unary(
        "Append",
        { ...address, ...batch },
        { ...ctx.call, ...address },
      );
      return appendAckToJson(ack, ctx.int64);
    },
  );

  app.get(`${base}/records`, { config }, async (req, reply) => {
    if (req.headers.accept?.includes("text/event-stream")) throw notYet("Subscribe over SSE");
    const ctx = requestContext(req, reply, true);
    const address = streamAddress(req);
    const query = parseReadQuery(req.query as Query);
    if (query.wait > 0) throw notYet("wait (long-poll)");
    const format = recordFormat(req);
    const res = await upstream.unary(
      "Read",
      { ...address, ...readRequestFields(query) },
      { ...ctx.call, ...address },
    );
    return readBatchToJson(res, format, ctx.int64);
  });

  app.get(`${base}/records/tail`, { config }, async (req, reply) => {
    const ctx = requestContext(req, reply, true);
    const address = streamAddress(req);
    return tailToJson(
      await upstream.unary("CheckTail", address, { ...ctx.call, ...address }),
      ctx.int64,
    );
  });

  app.post(`${base}/trim`, { config }, async (req, reply) => {
    const ctx = requestContext(req, reply);
    const address = streamAddress(req);
    await upstream.unary(
      "Trim",
      { ...address, ...trimBodyFromJson(req.body) },
      { ...ctx.call, ...address },
    );
    return reply.code(204).send();
  });

  app.post(`${base}/fence`, { config }, async (req, reply) => {
    const ctx = requestContext(req, reply);
    const address = streamAddress(req);
    const res = await upstream.unary(
      "Fence",
      { ...address, ...fenceBodyFromJson(req.body) },
      { ...ctx.call, ...address },
    );
    return tailToJson(res, ctx.int64);
  });
}
