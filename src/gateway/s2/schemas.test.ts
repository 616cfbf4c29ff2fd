import assert from "node:assert/strict";
import { test } from "node:test";
import * as plain from "./schemas.gen.ts";
import { s2Schemas } from "./schemas.ts";

test("the plain schemas the gateway loads are TypeBox's, member for member", () => {
  // Compared as structured clones: string-keyed enumerable members only, so neither TypeBox's own
  // (~kind, not enumerable) nor the symbol Fastify marks a route's schemas with count, while a
  // value JSON cannot hold (undefined, NaN) differs and a function throws. Staleness: npm run
  // openapi:check.
  assert.deepStrictEqual(structuredClone(plain.s2Schemas), structuredClone(s2Schemas));
});
