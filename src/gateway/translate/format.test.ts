import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { assertHttpError } from "../errors/assert-http-error.test-helper.ts";
import { bytesFromJson, bytesToJson, resolveFormat } from "./format.ts";

test("the query wins over the header; raw by default", () => {
  assert.equal(resolveFormat({}, undefined), "raw");
  assert.equal(resolveFormat({}, "base64"), "base64");
  assert.equal(resolveFormat({}, "raw"), "raw");
  assert.equal(resolveFormat({ format: "base64" }, "raw"), "base64");
  assert.equal(resolveFormat({ format: "raw" }, "base64"), "raw");
  // A header the query overrides is not looked at.
  assert.equal(resolveFormat({ format: "raw" }, "nonsense"), "raw");
});

test("an unknown format is refused, naming the query parameter or header", () => {
  for (const format of ["Base64", "", "hex", ["raw", "raw"]]) {
    assertHttpError(() => resolveFormat({ format }, undefined), {
      status: 400,
      code: "bad_query",
      field: "format",
    });
  }
  for (const header of ["BASE64", "", "utf8", ["raw", "base64"]]) {
    assertHttpError(() => resolveFormat({}, header), {
      status: 400,
      code: "bad_header",
      field: "nova-format",
    });
  }
});

test("raw: text in, the same text out", () => {
  fc.assert(
    fc.property(fc.string({ unit: "binary" }), (s) => {
      const bytes = bytesFromJson(s, "raw", "body");
      assert.deepEqual(bytes, Buffer.from(s, "utf8"));
      assert.equal(bytesToJson(bytes, "raw", "7", "body"), s);
    }),
  );
});

test("base64: any bytes in, the same bytes out", () => {
  fc.assert(
    fc.property(fc.uint8Array(), (bytes) => {
      const text = bytesToJson(bytes, "base64", 7n, "body");
      assert.deepEqual(new Uint8Array(bytesFromJson(text, "base64", "body")), bytes);
    }),
  );
});

test("raw keeps a leading byte-order mark", () => {
  const bytes = Buffer.from([0xef, 0xbb, 0xbf, 0x68, 0x69]);
  assert.equal(bytesToJson(bytes, "raw", "1", "body"), "\ufeffhi");
  assert.deepEqual(bytesFromJson("\ufeffhi", "raw", "body"), bytes);
});

test("raw output of bytes that are not UTF-8 is 422 not_utf8 naming the seq_num and field", () => {
  for (const bad of [[0xff], [0xc3], [0xed, 0xa0, 0x80], [0xc0, 0x80], [0x68, 0x80]]) {
    const e = assertHttpError(
      () => bytesToJson(Buffer.from(bad), "raw", "18446744073709551615", "headers[2].name"),
      {
        status: 422,
        code: "not_utf8",
        field: "headers[2].name",
      },
    );
    assert.equal(e.fields.seq_num, 18446744073709551615n);
    assert.match(e.message, /18446744073709551615.*format=base64/);
  }
});

test("raw input with a lone surrogate is refused, naming the field", () => {
  assertHttpError(() => bytesFromJson("a\ud800b", "raw", "records[0].body"), {
    status: 400,
    code: "invalid_argument",
    field: "records[0].body",
  });
});

test("base64 input errors name the field", () => {
  assertHttpError(() => bytesFromJson("not base64!", "base64", "records[1].headers[0].name"), {
    status: 400,
    code: "bad_base64",
    field: "records[1].headers[0].name",
  });
});
