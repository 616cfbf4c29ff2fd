// The S2 face as one Fastify plugin: S2's routes in their own context, so their failures leave
// in S2's shape (`{code, message}` with S2's statuses) while nova's routes keep the contract's.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { isServerFailure } from "../errors/index.ts";
import type { ReadService } from "../history/index.ts";
import { type AppendAdmission, type FaceErrors, requestError } from "../http/index.ts";
import type { SubscribeDeps } from "../sessions/index.ts";
import { stringifyJsonExact } from "../translate/index.ts";
import type { Upstream } from "../upstream/index.ts";
import { basinRoutes } from "./basins.ts";
import { S2HttpError, s2Error, toS2Error } from "./errors.ts";
import { s2RecordRoutes } from "./records-routes.ts";
import { S2S_TYPE } from "./s2s/index.ts";
import { s2StreamRoutes } from "./streams.ts";
import { unsupportedRoutes } from "./unsupported.ts";
import { S2_PROTO_TYPE, S2_PROTO_TYPES } from "./wire.ts";

export interface S2PluginOptions {
  upstream: Upstream;
  /** The append budget s2s append sessions take each input from. */
  admission: AppendAdmission;
  reads: ReadService;
  /** The same session machinery as nova's routes: hubs, history, drain, timing. */
  subscribe: SubscribeDeps;
  bodyLimit: number;
  /** An s2s append session's star session ends after this long with nothing unanswered. */
  sessionIdleMs: number;
}

/** S2's routes: what fails there before routing, or matches no route, answers as S2 does. */
const S2_PATHS = /^\/v1\/(basins|streams|access-tokens|locations|metrics)(\/|\?|$)/;

function sendS2Error(err: unknown, reply: FastifyReply): void {
  const s2 = toS2Error(err);
  reply
    .code(s2.status)
    .headers(s2.headers)
    .type("application/json")
    .send(stringifyJsonExact(s2.body));
}

/** The S2 face's error model, for the errors plugin's refusals before and outside routing. */
export const s2FaceErrors: FaceErrors = {
  owns: (url) => S2_PATHS.test(url),
  send: sendS2Error,
};

export async function s2Plugin(app: FastifyInstance, opts: S2PluginOptions) {
  app.setErrorHandler((err, req: FastifyRequest, reply: FastifyReply) => {
    const nova =
      (err as { code?: string }).code === "FST_ERR_CTP_INVALID_MEDIA_TYPE"
        ? s2Error(
            "bad_header",
            `content-type ${JSON.stringify(req.headers["content-type"] ?? "")} is not supported; send application/json or ${S2_PROTO_TYPE}`,
          )
        : requestError(err, { resource: req.routeOptions.config?.resource }, req);
    // The face's own 5xx (501 for what nova does not serve) are answers, not failures.
    if (isServerFailure(nova.status) && !(nova instanceof S2HttpError))
      req.log.error({ err }, "request failed");
    sendS2Error(nova, reply);
  });
  app.addContentTypeParser([...S2_PROTO_TYPES], { parseAs: "buffer" }, (_req, body, done) =>
    done(null, body),
  );
  // Left unread: the s2s transport reads its frames itself.
  app.addContentTypeParser(S2S_TYPE, (_req, _payload, done) => done(null, undefined));
  await app.register(basinRoutes, { upstream: opts.upstream });
  await app.register(s2StreamRoutes, { upstream: opts.upstream });
  await app.register(s2RecordRoutes, opts);
  await app.register(unsupportedRoutes);
}
