// How a request is logged: one line when it ends, with Fastify's request fields and the URL's
// access_token (other credential parameters, and anything shaped like a token) redacted, so a
// credential sent as a query parameter (EventSource cannot send headers) never reaches the logs. Fastify's default is two lines, one as the request arrives:
// logging went from 6.3% of the gateway's CPU on small appends to 4.2% with one
// (docs/benchmarks.md); the arrival line is kept at debug level.
import {
  type FastifyBaseLogger,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from "fastify";
import type { Logger } from "pino";

/**
 * A JSON Web Token as it appears in a URL: three base64url parts, the first two JSON objects'
 * (`eyJ` is `{"`), standing on their own (a key like `turkeyJerky.v1.json` is no token).
 */
const JWT = /(?<![\w-])eyJ[\w-]+\.eyJ[\w-]+\.[\w-]+/g;

/**
 * Query parameters that carry credentials, compared decoded and lowercased: nova's own
 * (access_token), and what clients send by mistake or by habit (OAuth's, API keys, presigned
 * object-storage URLs'). Never one of the gateway's own parameters, which stay readable.
 */
const CREDENTIAL_PARAMS = new Set([
  "access_token",
  "token",
  "id_token",
  "refresh_token",
  "api_key",
  "apikey",
  "api-key",
  "secret",
  "client_secret",
  "password",
  "signature",
  "x-amz-signature",
  "x-amz-credential",
  "x-amz-security-token",
  "x-goog-signature",
  "x-goog-credential",
]);

const decoded = (text: string): string => {
  try {
    return decodeURIComponent(text.replaceAll("+", " "));
  } catch {
    // Not percent-encoding: compared as written.
    return text;
  }
};

/**
 * `url` with the value of every credential parameter replaced, however its name is encoded or
 * cased, and any token-shaped text elsewhere (a misspelt name, `;access_token=` inside a value,
 * a token percent-encoded).
 */
export function redactCredentials(url: string): string {
  const q = url.indexOf("?");
  if (q === -1) return url.replace(JWT, "[redacted]");
  const params = url
    .slice(q + 1)
    .split("&")
    .map((param) => {
      const eq = param.indexOf("=");
      const name = eq === -1 ? param : param.slice(0, eq);
      if (CREDENTIAL_PARAMS.has(decoded(name).toLowerCase())) return `${name}=[redacted]`;
      // A token written plainly is cut out where it stands (below); one encoded, with its value.
      const value = eq === -1 ? "" : param.slice(eq + 1);
      const hidden = !value.match(JWT) && decoded(value).match(JWT);
      return hidden ? `${name}=[redacted]` : param;
    });
  return `${url.slice(0, q)}?${params.join("&")}`.replace(JWT, "[redacted]");
}

/** How a request is logged: Fastify's own fields, the URL without its credentials. */
export function requestLogFields(req: FastifyRequest) {
  return {
    method: req.method,
    url: redactCredentials(req.url),
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}

/** Fastify's request log lines: the arrival at debug level, the end at info with the request. */
export class RequestLogController extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, "incoming request");
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const fields = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...fields, err: error }, "request errored");
    else reply.log.info(fields, "request completed");
  }
}

/**
 * Fastify's logger options for the gateway's requests, over `logger`: a request is logged as
 * requestLogFields has it, never with its headers.
 */
export function requestLogging(logger: Logger) {
  return {
    loggerInstance: logger.child(
      {},
      { serializers: { req: requestLogFields } },
    ) as FastifyBaseLogger,
    logController: new RequestLogController(),
  };
}
