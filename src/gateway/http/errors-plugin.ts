// Every failure leaves as the contract's error body { code, message, retryable, ...fields }
// with the right status: Fastify's own refusals (size, media type, schema, unknown route) here,
// Node's parser refusals in client-error.ts,
// everything else as the error model maps it (errors/: HttpErrors, star statuses by the table
// in docs/http-api.md, fleet failures).
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import {
  badPath,
  errorBody,
  type GrpcErrorContext,
  HttpError,
  isServerFailure,
  payloadTooLarge,
  toHttpError,
  unsupportedMediaType,
} from "../errors/index.ts";
import type { Query } from "../translate/index.ts";
import { parseInt64Mode } from "../translate/index.ts";
import { closeForUnguardedBody } from "./body-guard.ts";
import { type RequestPart, validationError } from "./validation-errors.ts";

declare module "fastify" {
  interface FastifyContextConfig {
    /** What a route addresses, so a star's NOT_FOUND maps to bucket_ or stream_not_found. */
    resource?: GrpcErrorContext["resource"];
  }
}

/**
 * The HttpError an error reaching Fastify stands for: Fastify's own refusals here, anything else
 * as toHttpError maps it; `req` gives what a failed validation looked at.
 */
export function requestError(
  err: unknown,
  ctx: GrpcErrorContext = {},
  req?: FastifyRequest,
): HttpError {
  const e = err as FastifyError & { validationContext?: string };
  switch (e?.code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return payloadTooLarge("body", "is over the gateway's body limit");
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return unsupportedMediaType(req?.headers["content-type"] ?? "", acceptedMediaTypes(req));
    case "FST_ERR_BAD_URL":
      return badPath("path", "is not valid percent-encoded UTF-8");
    case "FST_ERR_MAX_PARAM_LENGTH":
      return badPath("path", "has a segment over 2048 characters; a stream key is 1 to 512 bytes");
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return new HttpError(400, "bad_json", "the body is empty; send a JSON document");
    case "ECONNRESET":
      // The client left while its body was being read: nobody to answer, nothing to log.
      return new HttpError(499, "cancelled", "the client went away before its request was read");
    case "ERR_STREAM_PREMATURE_CLOSE":
      // The client left while a file was being sent to it (the console's assets).
      if (req?.raw.socket.destroyed) {
        return new HttpError(499, "cancelled", "the client went away before its answer was sent");
      }
  }
  if (e?.name === "AbortError" && req?.raw.socket.destroyed) {
    // The client left while a star was being asked, and the call was cancelled with it.
    return new HttpError(499, "cancelled", "the client went away before its answer was ready");
  }
  if (e?.validation) {
    const part = (e.validationContext ?? "body") as RequestPart;
    return validationError(e.validation, part, req && requestPart(req, part));
  }
  return toHttpError(err, ctx);
}

/** The records route also takes an NDJSON append session; every other body is JSON. */
function acceptedMediaTypes(req?: FastifyRequest): string[] {
  return req?.routeOptions.url?.endsWith("/records")
    ? ["application/json", "application/x-ndjson"]
    : ["application/json"];
}

function requestPart(req: FastifyRequest, part: RequestPart): unknown {
  return part === "querystring" ? req.query : req[part];
}

/**
 * Another face's error model (S2's) for the paths it owns: what fails before routing there, or
 * matches no route, answers in that face's terms rather than nova's.
 */
export interface FaceErrors {
  owns(url: string): boolean;
  send(http: HttpError, reply: FastifyReply): void;
}

/** Fastify's refusals before routing, for its `frameworkErrors` option. */
export function frameworkErrorsFor(faces: readonly FaceErrors[] = []) {
  return (err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
    const http = requestError(err);
    closeForUnguardedBody(req, reply);
    const face = faces.find((f) => f.owns(req.url));
    if (face) face.send(http, reply);
    else reply.code(http.status).send(errorBody(http));
    // Fastify runs no hooks here: counted and logged as every other request is.
    req.server.requestEnded?.(req, http.status);
    reply.log.info({ req, res: { statusCode: http.status } }, "request completed");
  };
}

export interface ErrorsPluginOptions {
  faces?: readonly FaceErrors[];
}

export const errorsPlugin = fp(async (app: FastifyInstance, opts: ErrorsPluginOptions) => {
  app.setErrorHandler((err, req: FastifyRequest, reply: FastifyReply) => {
    const http = requestError(err, { resource: req.routeOptions.config?.resource }, req);
    if (isServerFailure(http.status)) req.log.error({ err }, "request failed");
    let int64: "number" | "string" = "number";
    try {
      int64 = parseInt64Mode(req.query as Query);
    } catch {
      // A bad int64 parameter is itself the error being reported.
    }
    // Always JSON, whatever type the route had set before it failed (a file being sent).
    reply
      .code(http.status)
      .headers(http.headers ?? {})
      .type("application/json; charset=utf-8")
      .send(errorBody(http, int64));
  });
  app.setNotFoundHandler((req, reply) => {
    const message = `no route for ${req.method} ${req.url.split("?")[0]}; see /docs`;
    const face = opts.faces?.find((f) => f.owns(req.url));
    if (face) return face.send(new HttpError(404, "not_found", message), reply);
    reply.code(404).send({ code: "not_found", message, retryable: false });
  });
});
