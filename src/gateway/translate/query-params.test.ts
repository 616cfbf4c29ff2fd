import assert from "node:assert/strict";
import { test } from "node:test";
import { assertHttpError } from "../errors/assert-http-error.test-helper.ts";
import { queryParam } from "./query-params.ts";

test("a single value or absent", () => {
  assert.equal(queryParam({ a: "1" }, "a"), "1");
  assert.equal(queryParam({ a: "" }, "a"), "");
  assert.equal(queryParam({}, "a"), undefined);
});

test("a repeated or non-string parameter is 400 bad_query naming it", () => {
  assertHttpError(() => queryParam({ seq_num: ["1", "2"] }, "seq_num"), {
    status: 400,
    code: "bad_query",
    field: "seq_num",
  });
  assertHttpError(() => queryParam({ seq_num: 5 }, "seq_num"), {
    status: 400,
    code: "bad_query",
    field: "seq_num",
  });
});
