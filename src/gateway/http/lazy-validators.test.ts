import assert from "node:assert/strict";
import { test } from "node:test";
import { lazyValidators } from "./lazy-validators.ts";

const options = { customOptions: { coerceTypes: false as const, removeAdditional: false } };

test("a route's validator is compiled on its first use, not when it is made", () => {
  const compile = lazyValidators({}, options);
  // An invalid schema: Ajv refuses it, but only once the validator is first called.
  const broken = compile({ schema: { type: "no-such-type" }, httpPart: "body" });
  assert.throws(() => broken({}), /no-such-type|schema is invalid/);
});

test("it validates as Fastify's would, and the errors are on the function Fastify called", () => {
  const compile = lazyValidators({}, options);
  const validate = compile({
    schema: {
      type: "object",
      properties: { n: { type: "integer" } },
      required: ["n"],
      additionalProperties: false,
    },
    httpPart: "body",
  });
  assert.equal(validate({ n: 1 }), true);
  assert.equal(validate.errors, null);
  assert.equal(validate({ n: "1" }), false, "nothing is coerced");
  const [first] = validate.errors as unknown as { instancePath: string }[];
  assert.equal(first?.instancePath, "/n");
  const body = { n: 2, extra: true };
  assert.equal(validate(body), false, "nothing is removed");
  assert.deepEqual(body, { n: 2, extra: true });
});

test("shared schemas are found by reference", () => {
  const compile = lazyValidators({ Pos: { $id: "Pos", type: "integer", minimum: 0 } }, options);
  const validate = compile({ schema: { $ref: "Pos#" }, httpPart: "body" });
  assert.equal(validate(3), true);
  assert.equal(validate(-1), false);
});
