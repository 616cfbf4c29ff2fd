// A check for tests: every JSON response must match the schema its route documents for that
// status, so the OpenAPI document cannot drift from what the gateway writes. Responses are
// written by stringifyJsonExact, not by the schemas, so nothing else would notice. A mismatch
// turns the response into a 500 naming the difference. Off in production (it parses every
// response again). Each documented response's schema is compiled when a response first needs it.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import type { TSchema } from "typebox";
import { ERROR_CODES, HttpError } from "../errors/index.ts";
import { parseJsonExact } from "../translate/index.ts";
import { sharedSchemas } from "./schemas/plain.gen.ts";

type Check = (value: unknown) => string | undefined;

/** A documented response: its JSON schema's check, when it has one. */
interface Documented {
  json?: Check;
  /** It is an ErrorBody: its code must be one the document lists (ERROR_CODES). */
  error?: boolean;
}

const KNOWN_CODES = new Set<string>(ERROR_CODES);

/** TypeBox's Compile, its references resolved among the shared schemas. */
type Compiler = (schema: TSchema) => ReturnType<typeof import("typebox/compile").Compile>;

function compile(Compile: Compiler, schema: unknown): Check {
  const validator = Compile(schema as TSchema);
  return (value) => {
    if (validator.Check(value)) return undefined;
    const [first] = validator.Errors(value);
    return first === undefined ? "does not match" : `${first.instancePath || "/"} ${first.message}`;
  };
}

/** A response is a schema, or { content: { [media type]: { schema } } }. */
function documented(Compile: Compiler, response: unknown): Documented {
  const content = (response as { content?: Record<string, { schema: unknown }> }).content;
  const schema = content === undefined ? response : content["application/json"]?.schema;
  if (schema === undefined) return {};
  const error = (schema as { $ref?: string }).$ref === "ErrorBody";
  return { json: compile(Compile, schema), ...(error ? { error } : {}) };
}

export const responseCheckPlugin = fp(async (app: FastifyInstance) => {
  // Loaded here, not with the module: only a test gateway checks its responses, and TypeBox's
  // compiler (about 300 files) would add about 0.1 s to every gateway's start.
  const { Compile } = await import("typebox/compile");
  const context = Object.fromEntries(sharedSchemas.map((schema) => [schema.$id, schema]));
  const compileHere: Compiler = (schema) => Compile(context, schema);
  // A route's documented responses, by status, compiled as they are first needed.
  const checks = new WeakMap<object, Map<number, Documented>>();
  app.addHook("onSend", async (req: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const responses = req.routeOptions.schema?.response as Record<string, unknown> | undefined;
    if (responses === undefined || responses === null) return payload;
    // 499: the client went away; nobody reads what is sent.
    if (reply.statusCode === 499) return payload;
    const where = `${req.method} ${req.routeOptions.url} ${reply.statusCode}`;
    const documentedHere = responses[reply.statusCode];
    if (documentedHere === undefined) throw mismatch(`${where}: this status is not documented`);
    let byStatus = checks.get(responses);
    if (byStatus === undefined) {
      byStatus = new Map();
      checks.set(responses, byStatus);
    }
    let response = byStatus.get(reply.statusCode);
    if (response === undefined) {
      response = documented(compileHere, documentedHere);
      byStatus.set(reply.statusCode, response);
    }
    const type = String(reply.getHeader("content-type") ?? "");
    if (!type.startsWith("application/json")) return payload;
    // Read pages are sent as bytes already written; they are checked like any other reply.
    const text = Buffer.isBuffer(payload) ? payload.toString("utf8") : payload;
    if (typeof text !== "string") return payload;
    if (response.json === undefined) throw mismatch(`${where}: JSON is not documented`);
    const body = parseJsonExact(text);
    const problem = response.json(body);
    if (problem !== undefined) throw mismatch(`${where}: ${problem} in ${text.slice(0, 500)}`);
    const code = (body as { code?: unknown }).code;
    if (response.error && !KNOWN_CODES.has(String(code))) {
      throw mismatch(`${where}: code ${JSON.stringify(code)} is not among ErrorBody's codes`);
    }
    return payload;
  });
});

function mismatch(message: string): HttpError {
  return new HttpError(500, "internal", `response does not match its schema: ${message}`);
}
