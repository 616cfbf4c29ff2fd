import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { MAX_BATCH_RECORDS } from "../../contract/wire-limits.ts";
import { HttpError } from "../errors/index.ts";
import { jsonArray, jsonMessages } from "./json-mode.ts";

const text = (b: Uint8Array) => Buffer.from(b).toString();
const messages = (body: string, on: "append" | "create" = "append") =>
  jsonMessages(Buffer.from(body), on).map(text);

test("one level of an array is flattened; a single value is one message", () => {
  assert.deepEqual(messages('{"event": "created"}'), ['{"event": "created"}']);
  assert.deepEqual(messages('[{"event": "a"}, {"event": "b"}]'), [
    '{"event": "a"}',
    '{"event": "b"}',
  ]);
  assert.deepEqual(messages("[[1,2], [3,4]]"), ["[1,2]", "[3,4]"]);
  assert.deepEqual(messages("[[[1,2,3]]]"), ["[[1,2,3]]"]);
  assert.deepEqual(messages(' ["a,]", "b\\"]", {"c": [1, {"d": "}"}]}] '), [
    '"a,]"',
    '"b\\"]"',
    '{"c": [1, {"d": "}"}]}',
  ]);
});

test("numbers keep every digit", () => {
  assert.deepEqual(messages("[12345678901234567890123, 1.10]"), [
    "12345678901234567890123",
    "1.10",
  ]);
});

test("an empty array is a 400 on append and nothing on create", () => {
  assert.throws(
    () => messages("[]"),
    (e: unknown) => e instanceof HttpError && e.status === 400,
  );
  assert.deepEqual(messages(" [ ] ", "create"), []);
});

test("invalid JSON or UTF-8 is a 400 bad_json", () => {
  for (const body of [
    Buffer.from("{"),
    Buffer.from("[1,]"),
    Buffer.from(""),
    Buffer.from([0x22, 0xff, 0x22]),
  ]) {
    assert.throws(
      () => jsonMessages(body, "append"),
      (e: unknown) => e instanceof HttpError && e.status === 400 && e.code === "bad_json",
    );
  }
});

test("messages appended as an array read back as the same array", () => {
  fc.assert(
    fc.property(fc.array(fc.jsonValue(), { minLength: 1, maxLength: 20 }), (values) => {
      const body = Buffer.from(JSON.stringify(values));
      const read = jsonArray(jsonMessages(body, "append"));
      assert.deepEqual(JSON.parse(read.toString()), JSON.parse(body.toString()));
    }),
  );
});

test("each message reads back as itself", () => {
  fc.assert(
    fc.property(fc.jsonValue(), (value) => {
      const body = Buffer.from(JSON.stringify([value]));
      const [one] = jsonMessages(body, "append");
      assert.deepEqual(JSON.parse(text(one as Buffer)), JSON.parse(JSON.stringify(value)));
    }),
  );
});

test("a body is JSON exactly when JSON.parse says so; each message is its element's text", () => {
  const bodies = fc.oneof(
    fc.json(),
    fc.array(fc.json(), { maxLength: 6 }).map((parts) => `[${parts.join(",")}]`),
    fc.string({ unit: fc.constantFrom(...'[]{},\\" 01a:\t\uFEFF\u00a0') }),
  );
  fc.assert(
    fc.property(bodies, (body) => {
      // As the body is read: UTF-8, a leading BOM dropped.
      const decoded = new TextDecoder().decode(Buffer.from(body));
      let valid = true;
      try {
        JSON.parse(decoded);
      } catch {
        valid = false;
      }
      let got: string[] | undefined;
      try {
        got = messages(body, "create");
      } catch (err) {
        assert.ok(err instanceof HttpError && err.code === "bad_json", String(err));
      }
      assert.equal(got !== undefined, valid, JSON.stringify(body));
      if (!got) return;
      const value: unknown = JSON.parse(decoded);
      const want = Array.isArray(value) ? value : [value];
      assert.deepEqual(
        got.map((m) => JSON.parse(m)),
        want,
      );
    }),
    { numRuns: 2000 },
  );
});

test("a JSON array of more messages than one append takes is a 413, before they are made", () => {
  const body = Buffer.from(`[${"0,".repeat(MAX_BATCH_RECORDS)}0]`);
  assert.throws(
    () => jsonMessages(body, "append"),
    (e: unknown) =>
      e instanceof HttpError && e.status === 413 && /at most 10000 messages/.test(e.message),
  );
  assert.equal(
    jsonMessages(Buffer.from(`[${"0,".repeat(MAX_BATCH_RECORDS - 1)}0]`), "append").length,
    MAX_BATCH_RECORDS,
  );
});
