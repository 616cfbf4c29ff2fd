import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { MAX_LIST_LIMIT } from "../../contract/wire-limits.ts";
import { assertHttpError } from "../errors/assert-http-error.test-helper.ts";
import { listQueryFromQuery } from "./list-query.ts";

test("prefix, cursor and limit; a larger limit is clamped", () => {
  assert.deepEqual(listQueryFromQuery({}), { prefix: "", start_after: "", limit: 0 });
  assert.deepEqual(listQueryFromQuery({ prefix: "a/", start_after: "opaque", limit: "10" }), {
    prefix: "a/",
    start_after: "opaque",
    limit: 10,
  });
  fc.assert(
    fc.property(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), (n) => {
      const expected = n > BigInt(MAX_LIST_LIMIT) ? MAX_LIST_LIMIT : Number(n);
      assert.equal(listQueryFromQuery({ limit: String(n) }).limit, expected);
    }),
  );
});

test("bad list queries are 400 bad_query naming the parameter", () => {
  for (const [query, field] of [
    [{ limit: "-1" }, "limit"],
    [{ limit: "ten" }, "limit"],
    [{ prefix: ["a", "b"] }, "prefix"],
    [{ start_after: "\udc00" }, "start_after"],
  ] as const) {
    assertHttpError(() => listQueryFromQuery(query), { status: 400, code: "bad_query", field });
  }
});
