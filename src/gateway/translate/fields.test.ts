import assert from "node:assert/strict";
import { test } from "node:test";
import { assertHttpError } from "../errors/assert-http-error.test-helper.ts";
import { invalidArgument } from "../errors/index.ts";
import {
  asArray,
  asBoolean,
  asObject,
  asString,
  asWellFormed,
  describe,
  fieldPath,
  rejectUnknown,
} from "./fields.ts";

test("field paths read like JavaScript", () => {
  assert.equal(fieldPath("", "records"), "records");
  assert.equal(
    fieldPath(fieldPath(fieldPath("records", 3), "headers"), 1),
    "records[3].headers[1]",
  );
  assert.equal(fieldPath("records[3].headers[1]", "value"), "records[3].headers[1].value");
});

test("shape checks name the field and say what came instead", () => {
  const bad = { status: 400, code: "invalid_argument", field: "x.y" };
  for (const v of [null, [], "s", 1])
    assertHttpError(() => asObject(v, "x.y", invalidArgument), bad);
  for (const v of [null, {}, "s"]) assertHttpError(() => asArray(v, "x.y", invalidArgument), bad);
  for (const v of [null, 1, [], undefined])
    assertHttpError(() => asString(v, "x.y", invalidArgument), bad);
  for (const v of [null, "true", 1])
    assertHttpError(() => asBoolean(v, "x.y", invalidArgument), bad);
  assertHttpError(() => asWellFormed("\udc00", "x.y", invalidArgument), bad);
  const e = assertHttpError(() => asString(null, "x.y", invalidArgument), bad);
  assert.equal(e.message, "x.y: must be a string, not null");
  assert.deepEqual(
    [describe([]), describe({}), describe(1), describe(undefined)],
    ["an array", "an object", "a number", "nothing"],
  );
});

test("unknown members are refused by their full path", () => {
  assertHttpError(
    () => rejectUnknown({ body: "", bodyy: "" }, new Set(["body"]), "records[2]", invalidArgument),
    {
      status: 400,
      code: "invalid_argument",
      field: "records[2].bodyy",
    },
  );
  assertHttpError(() => rejectUnknown({ extra: 1 }, new Set(), "", invalidArgument), {
    status: 400,
    code: "invalid_argument",
    field: "extra",
  });
  rejectUnknown({ body: "" }, new Set(["body"]), "", invalidArgument);
});
