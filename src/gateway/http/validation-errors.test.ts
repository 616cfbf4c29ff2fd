import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import type { FastifySchemaValidationError } from "fastify";
import { type RequestPart, validationError } from "./validation-errors.ts";

const e = (
  keyword: string,
  instancePath: string,
  params: Record<string, unknown> = {},
  message?: string,
): FastifySchemaValidationError => ({
  keyword,
  instancePath,
  schemaPath: "#",
  params,
  ...(message === undefined ? {} : { message }),
});

function expect(
  errors: FastifySchemaValidationError[],
  part: RequestPart,
  data: unknown,
  code: string,
  field: string,
  message: string,
) {
  const err = validationError(errors, part, data);
  assert.equal(err.status, 400);
  assert.equal(err.code, code);
  assert.equal(err.fields.field, field);
  assert.equal(err.message, `${field}: ${message}`);
}

test("each request part has its code; fields are named as translation names them", () => {
  const body = { records: [{ headers: [{ name: "k" }], body: 5 }] };
  expect(
    [e("type", "/records/0/body", { type: "string" })],
    "body",
    body,
    "invalid_argument",
    "records[0].body",
    "must be a string, not a number",
  );
  expect(
    [e("required", "/records/0/headers/0", { missingProperty: "value" })],
    "body",
    body,
    "invalid_argument",
    "records[0].headers[0].value",
    "is required",
  );
  expect(
    [e("additionalProperties", "", { additionalProperty: "cursor" })],
    "querystring",
    { cursor: "1" },
    "bad_query",
    "cursor",
    "is not a known query parameter",
  );
  expect(
    [e("enum", "/nova-format", { allowedValues: ["raw", "base64"] })],
    "headers",
    { "nova-format": "hex" },
    "bad_header",
    "nova-format",
    'must be one of "raw", "base64", not "hex"',
  );
  expect(
    [e("pattern", "/bucket", { pattern: "^[a-z]+$" })],
    "params",
    { bucket: "A" },
    "bad_path",
    "bucket",
    'must match ^[a-z]+$, not "A"',
  );
  // A header's length is in bytes, a body string's in characters.
  expect(
    [e("maxLength", "/nova-request-token", { limit: 256 })],
    "headers",
    { "nova-request-token": "t".repeat(257) },
    "bad_header",
    "nova-request-token",
    "must be at most 256 bytes",
  );
  expect(
    [e("maxLength", "/name", { limit: 48 })],
    "body",
    { name: "n".repeat(49) },
    "invalid_argument",
    "name",
    "must be at most 48 characters",
  );
  expect(
    [e("type", "", { type: "object" })],
    "body",
    [],
    "invalid_argument",
    "body",
    "must be an object, not an array",
  );
});

test("a repeated query parameter is named as such", () => {
  expect(
    [e("enum", "/format", { allowedValues: ["raw", "base64"] })],
    "querystring",
    { format: ["raw", "base64"] },
    "bad_query",
    "format",
    "is given more than once",
  );
});

test("a union failure keeps the branches that took the value's type", () => {
  const ts = "/records/0/timestamp_ms";
  const anyOf = e("anyOf", ts);
  expect(
    [e("type", ts, { type: "string" }), e("minimum", ts, { limit: 0 }), anyOf],
    "body",
    { records: [{ timestamp_ms: -1 }] },
    "invalid_argument",
    "records[0].timestamp_ms",
    "must be at least 0, not -1",
  );
  expect(
    [e("type", ts, { type: "string" }), e("type", ts, { type: "integer" }), anyOf],
    "body",
    { records: [{ timestamp_ms: true }] },
    "invalid_argument",
    "records[0].timestamp_ms",
    "must be a string or an integer, not a boolean",
  );
  const h = "/records/0/headers/0";
  expect(
    [e("minLength", `${h}/name`, { limit: 1 }), e("type", h, { type: "array" }), e("anyOf", h)],
    "body",
    { records: [{ headers: [{ name: "", value: "v" }] }] },
    "invalid_argument",
    "records[0].headers[0].name",
    "must not be empty",
  );
});

test("sent values are shown exactly, never by calling into them", () => {
  const big = 10n ** 20n;
  const at = (keyword: string, params: Record<string, unknown>, data: unknown) =>
    validationError([{ keyword, instancePath: "/x", schemaPath: "#", params }], "body", data)
      .message;
  assert.equal(at("const", { allowedValue: "a" }, { x: big }), `x: must be "a", not ${big}`);
  assert.equal(
    at("enum", { allowedValues: ["a", "b"] }, { x: big }),
    `x: must be one of "a", "b", not ${big}`,
  );
  assert.equal(at("maximum", { limit: 5 }, { x: big }), `x: must be at most 5, not ${big}`);
  assert.equal(
    at("minimum", { limit: 0 }, { x: { toString: {} } }),
    'x: must be at least 0, not {"toString":{}}',
  );
});

test("any list of errors gives a 400 naming a field, never a throw", () => {
  const keyword = fc.constantFrom(
    "type",
    "required",
    "additionalProperties",
    "enum",
    "pattern",
    "minimum",
    "maxItems",
    "anyOf",
    "format",
  );
  const pointer = fc.array(fc.oneof(fc.string(), fc.nat(5).map(String)), { maxLength: 4 });
  const error = fc.record({
    keyword,
    instancePath: pointer.map((p) =>
      p.map((s) => `/${s.replaceAll("~", "~0").replaceAll("/", "~1")}`).join(""),
    ),
    schemaPath: fc.constant("#"),
    params: fc.dictionary(fc.string(), fc.jsonValue()),
  });
  const part = fc.constantFrom<RequestPart>("params", "querystring", "headers", "body");
  fc.assert(
    fc.property(fc.array(error, { maxLength: 4 }), part, fc.jsonValue(), (errors, p, data) => {
      const err = validationError(errors, p, data);
      assert.equal(err.status, 400);
      const field = err.fields.field;
      assert.equal(typeof field, "string");
      assert.ok(err.message.startsWith(`${String(field)}: `), err.message);
    }),
  );
});
