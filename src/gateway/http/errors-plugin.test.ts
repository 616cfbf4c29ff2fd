import assert from "node:assert/strict";
import { test } from "node:test";
import Fastify from "fastify";
import pino from "pino";
import { HttpError } from "../errors/index.ts";
import { errorsPlugin } from "./errors-plugin.ts";

/** An app with the errors plugin whose route fails with `err`, and the error-level lines it logged. */
async function failWith(err: Error) {
  const errors: Record<string, unknown>[] = [];
  const logger = pino(
    { level: "info" },
    {
      write: (line: string) => {
        const entry = JSON.parse(line) as Record<string, unknown>;
        if ((entry.level as number) >= 50) errors.push(entry);
      },
    },
  );
  const app = Fastify({ loggerInstance: logger });
  await app.register(errorsPlugin);
  app.get("/x", async () => {
    throw err;
  });
  const res = await app.inject({ method: "GET", url: "/x" });
  await app.close();
  return { res, errors };
}

test("a failure of the gateway or a star is logged at error, with the error", async () => {
  for (const err of [
    new HttpError(503, "unavailable", "no star answered", { retryable: true }),
    new Error("a bug"),
  ]) {
    const { res, errors } = await failWith(err);
    assert.ok(res.statusCode >= 500 && res.statusCode !== 501, String(res.statusCode));
    assert.equal(errors.length, 1, JSON.stringify(errors));
    assert.equal(errors[0]?.msg, "request failed");
  }
});

test("501, what this deployment does not serve, is an answer: not logged at error", async () => {
  const { res, errors } = await failWith(
    new HttpError(501, "unimplemented", "the star has no signing key"),
  );
  assert.equal(res.statusCode, 501);
  assert.equal(res.json().code, "unimplemented");
  assert.deepEqual(errors, []);
});

test("4xx are the client's: not logged at error", async () => {
  const { res, errors } = await failWith(new HttpError(409, "already_exists", "taken"));
  assert.equal(res.statusCode, 409);
  assert.deepEqual(errors, []);
});
