// The Durable Streams face as one Fastify plugin under /ds: its routes in their own context,
// where every body is taken as bytes whatever its type (the protocol's streams carry any
// content type) and failures leave with the protocol's statuses and headers.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { errorBody, isServerFailure } from "../errors/index.ts";
import { requestError } from "../http/index.ts";
import { checkBucketName } from "../translate/index.ts";
import { toDsError } from "./errors.ts";
import { type DsRoutesOptions, dsRoutes } from "./routes.ts";
import { SECURITY_HEADERS } from "./security-headers.ts";

export type DsPluginOptions = DsRoutesOptions;

/** Browser clients read and send these (with CORS on). */
export const DS_REQUEST_HEADERS = [
  "if-none-match",
  "stream-closed",
  "stream-ttl",
  "stream-expires-at",
  "stream-seq",
  "stream-forked-from",
  "stream-fork-offset",
  "stream-fork-sub-offset",
  "producer-id",
  "producer-epoch",
  "producer-seq",
];
export const DS_RESPONSE_HEADERS = [
  "etag",
  "location",
  "stream-next-offset",
  "stream-up-to-date",
  "stream-closed",
  "stream-cursor",
  "stream-ttl",
  "stream-expires-at",
  "stream-sse-data-encoding",
  "producer-epoch",
  "producer-seq",
  "producer-expected-seq",
  "producer-received-seq",
];

export async function dsPlugin(app: FastifyInstance, opts: DsPluginOptions) {
  checkBucketName(opts.bucket, "--ds-bucket");
  app.setErrorHandler((err, req: FastifyRequest, reply: FastifyReply) => {
    const http = toDsError(requestError(err, { resource: "stream" }, req));
    if (isServerFailure(http.status)) req.log.error({ err }, "request failed");
    reply
      .code(http.status)
      .headers(http.headers ?? {})
      .type("application/json; charset=utf-8")
      .send(errorBody(http, "string"));
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer" }, (_req, body, done) => done(null, body));
  app.addHook("onSend", async (_req, reply) => {
    reply.headers(SECURITY_HEADERS);
  });
  await dsRoutes(app, opts);
}
