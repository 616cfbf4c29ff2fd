import assert from "node:assert/strict";
import { test } from "node:test";
import Fastify, { type FastifyReply } from "fastify";
import { errorsPlugin } from "./errors-plugin.ts";
import { responseCheckPlugin } from "./response-check.ts";
import { sharedSchemas } from "./schemas/plain.gen.ts";

async function app() {
  const a = Fastify();
  for (const shared of sharedSchemas) a.addSchema(shared);
  await a.register(errorsPlugin);
  await a.register(responseCheckPlugin);
  const schema = {
    response: {
      200: {
        type: "object",
        properties: { n: { type: "integer" } },
        required: ["n"],
        additionalProperties: false,
      },
      // The check's own 500 goes through the check too.
      500: {
        type: "object",
        properties: { code: { type: "string" }, message: { type: "string" } },
      },
    },
  };
  const json =
    (body: string) => (_req: unknown, reply: { type(t: string): { send(b: string): unknown } }) =>
      reply.type("application/json").send(body);
  a.get("/right", { schema }, json('{"n":1}'));
  a.get("/wrong", { schema }, json('{"n":"1"}'));
  const refused = (code: string) => (_req: unknown, reply: FastifyReply) =>
    reply
      .code(409)
      .type("application/json")
      .send(JSON.stringify({ code, message: "no", retryable: false }));
  const errors = { response: { ...schema.response, 409: { $ref: "ErrorBody" } } };
  a.get("/listed", { schema: errors }, refused("conflict"));
  a.get("/unlisted", { schema: errors }, refused("no_such_code"));
  a.get("/undocumented", { schema }, (_req, reply) =>
    reply
      .code(201 as never)
      .type("application/json")
      .send("{}"),
  );
  return a;
}

test("a response that matches its documented schema goes out as it is", async () => {
  const a = await app();
  const res = await a.inject("/right");
  assert.equal(res.statusCode, 200);
  assert.equal(res.body, '{"n":1}');
  // Checked again with the schema compiled on the first response.
  assert.equal((await a.inject("/right")).statusCode, 200);
});

test("one that does not, or with a status not documented, is a 500 naming the difference", async () => {
  const a = await app();
  const wrong = await a.inject("/wrong");
  assert.equal(wrong.statusCode, 500);
  assert.match(wrong.body, /does not match its schema: GET \/wrong 200: \/n/);
  const undocumented = await a.inject("/undocumented");
  assert.equal(undocumented.statusCode, 500);
  assert.match(undocumented.body, /this status is not documented/);
});

test("an error body's code must be one the document lists", async () => {
  const a = await app();
  assert.equal((await a.inject("/listed")).statusCode, 409);
  const unlisted = await a.inject("/unlisted");
  assert.equal(unlisted.statusCode, 500);
  assert.match(unlisted.body, /code \\"no_such_code\\" is not among ErrorBody's codes/);
});
