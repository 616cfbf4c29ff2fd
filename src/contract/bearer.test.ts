import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { bearerToken } from "./bearer.ts";

test("property: the token after the scheme and any number of spaces, in any case", () => {
  const token = fc.string({ minLength: 1, maxLength: 40 }).filter((t) => !t.includes(" "));
  fc.assert(
    fc.property(
      token,
      fc.integer({ min: 1, max: 5 }),
      fc.constantFrom("Bearer", "bearer", "BEARER"),
      (t, n, scheme) => {
        assert.equal(bearerToken(`${scheme}${" ".repeat(n)}${t}`), t);
      },
    ),
  );
});

test("anything else is no bearer credential", () => {
  for (const header of [
    undefined,
    "",
    "Bearer",
    "Bearer ",
    "Basic abc",
    "Bearer a b",
    "Bearer\tabc",
    " Bearer abc",
    "Bearer abc ",
  ]) {
    assert.equal(bearerToken(header), undefined, JSON.stringify(header));
  }
});
