// JSON in and out with exact integers: bodies are parsed without rounding through a double
// (big values arrive as decimal strings), and replies write bigint values as exact digits.
import type { FastifyInstance, FastifyReply } from "fastify";
import fp from "fastify-plugin";
import { parseJsonBody, stringifyJsonExact } from "../translate/index.ts";
import { chargeParse } from "./admission.ts";
import { bodyTicket } from "./body-guard.ts";
import { responseBuffers } from "./response-buffers.ts";
import { checkUtf8Charset } from "./utf8-charset.ts";

export const jsonPlugin = fp(async (app: FastifyInstance) => {
  // JSON only: anything else (text/plain included) is 415 unless a route adds a parser.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, (req, body, done) => {
    try {
      checkUtf8Charset(req.headers["content-type"]);
      const bytes = body as Buffer;
      // An append's parse is charged to its admission as it goes, past what its size counts.
      const ticket = bodyTicket(req);
      const charge = ticket && chargeParse(ticket, bytes.length);
      done(null, bytes.length === 0 ? undefined : parseJsonBody(bytes, charge));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
  // Response schemas document responses (OpenAPI) but never write them. fast-json-stringify,
  // Fastify's schema-driven writer, cannot: an exact integer is a bigint, which matches neither
  // branch of its string-or-integer union, and it drops fields a schema does not list instead of
  // failing. Every reply goes through stringifyJsonExact; tests check the output against the
  // schemas instead (response-check.ts).
  app.setReplySerializer((payload) => stringifyJsonExact(payload));
  app.setSerializerCompiler(() => (data) => stringifyJsonExact(data));
});

/**
 * Sends JSON already written as bytes (read pages), skipping the serializer and the string
 * round trip that costs a megabyte page most of its time. A body from the response-buffer pool
 * goes back to it once the socket has taken it all.
 */
export function sendJsonBytes(reply: FastifyReply, body: Buffer): FastifyReply {
  reply.raw.once("finish", () => responseBuffers.give(body));
  return reply.type("application/json; charset=utf-8").send(body);
}
