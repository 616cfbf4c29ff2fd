// Every failure leaves as the contract's error body { code, message, retryable, ...fields }
// with the right status: the gateway's own HttpErrors, star statuses (the table in
// http-api.md), and Fastify's own refusals (size, media type, schema, unknown route).
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { FleetError, StarCallError } from "../fleet/errors.ts";
import {
  errorBody,
  fromGrpcError,
  type GrpcErrorContext,
  HttpError,
  internal,
  payloadTooLarge,
  unavailable,
  unsupportedMediaType,
} from "../translate/errors.ts";
import { parseInt64Mode } from "../translate/integers.ts";
import type { Query } from "../translate/query-params.ts";

declare module "fastify" {
  interface FastifyContextConfig {
    /** What a route addresses, so a star's NOT_FOUND maps to bucket_ or stream_not_found. */
    resource?: GrpcErrorContext["resource"];
  }
}

const VALIDATION_CODES: Record<string, string> = {
  querystring: "bad_query",
  params: "bad_path",
  headers: "bad_header",
  body: "invalid_argument",
};

/** The HttpError an error stands for. */
export function toHttpError(err: unknown, ctx: GrpcErrorContext = {}, contentType = ""): HttpError {
  if (err instanceof HttpError) return err;
  if (err instanceof StarCallError) {
    return fromGrpcError(err, { ...ctx, outcomeUnknown: err.outcomeUnknown });
  }
  if (err instanceof FleetError) return unavailable(err.message);
  const e = err as FastifyError & { validationContext?: string };
  switch (e?.code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return payloadTooLarge("body", "is over the gateway's body limit");
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return unsupportedMediaType(contentType, ["application/json"]);
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return new HttpError(400, "bad_json", "the body is empty; send a JSON document");
  }
  if (e?.validation) {
    const code = VALIDATION_CODES[e.validationContext ?? "body"] ?? "invalid_argument";
    return new HttpError(400, code, e.message);
  }
  return internal(err);
}

export const errorsPlugin = fp(async (app: FastifyInstance) => {
  app.setErrorHandler((err, req: FastifyRequest, reply: FastifyReply) => {
    const http = toHttpError(
      err,
      { resource: req.routeOptions.config?.resource },
      req.headers["content-type"] ?? "",
    );
    if (http.status >= 500) req.log.error({ err }, "request failed");
    let int64: "number" | "string" = "number";
    try {
      int64 = parseInt64Mode(req.query as Query);
    } catch {
      // A bad int64 parameter is itself the error being reported.
    }
    reply
      .code(http.status)
      .headers(http.headers ?? {})
      .send(errorBody(http, int64));
  });
  app.setNotFoundHandler((req, reply) => {
    reply.code(404).send({
      code: "not_found",
      message: `no route for ${req.method} ${req.url.split("?")[0]}; see /docs`,
      retryable: false,
    });
  });
});
