import assert from "node:assert/strict";
import { test } from "node:test";
import { checkUtf8Charset } from "./utf8-charset.ts";

test("no charset, or UTF-8 however spelled, is read; any other is 415", () => {
  for (const type of [
    undefined,
    "application/json",
    "application/json; charset=utf-8",
    "application/json;CHARSET=UTF8",
    'application/x-ndjson; charset="utf-8"',
    "application/json; boundary=x",
  ]) {
    checkUtf8Charset(type);
  }
  for (const [type, charset] of [
    ["application/json; charset=latin1", "latin1"],
    ["application/json; charset=utf-16", "utf-16"],
    ['application/json; charset="iso-8859-1"', "iso-8859-1"],
    ["application/json; charset=", ""],
  ] as const) {
    assert.throws(
      () => checkUtf8Charset(type),
      (err: { status: number; code: string; message: string }) =>
        err.status === 415 &&
        err.code === "unsupported_media_type" &&
        err.message.startsWith(`charset ${JSON.stringify(charset)} is not supported`),
      type,
    );
  }
});
