import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { MAX_STREAM_KEY_BYTES } from "../../contract/wire-limits.ts";
import { assertHttpError } from "../errors/assert-http-error.test-helper.ts";
import { parseStreamSpecs } from "./multiplex-query.ts";

const bucket = fc.stringMatching(/^[a-z0-9][a-z0-9-]{1,46}[a-z0-9]$/);
const key = fc
  .string({ unit: "grapheme", minLength: 1, maxLength: 40 })
  .filter((k) => Buffer.byteLength(k) <= MAX_STREAM_KEY_BYTES && k !== "." && k !== "..");

test("any bucket and key, percent-encoded as in a path, come back as they were, in order", () => {
  fc.assert(
    fc.property(
      fc.uniqueArray(fc.tuple(bucket, key), {
        minLength: 1,
        maxLength: 8,
        selector: ([b, k]) => `${b}/${k}`,
      }),
      (streams) => {
        const values = streams.map(([b, k]) => `${b}/${encodeURIComponent(k)}`);
        const specs = parseStreamSpecs({ stream: values.length === 1 ? values[0] : values }, 64);
        assert.deepEqual(
          specs.map((s) => [s.bucket, s.key, s.name]),
          streams.map(([b, k]) => [b, k, `${b}/${k}`]),
        );
      },
    ),
  );
});

test("each stream has its own start and bounds; none means the tail with no bound", () => {
  const [a, b, c] = parseStreamSpecs(
    {
      stream: [
        "orders/eu",
        "orders/us;seq_num=100;count=500;clamp=true",
        "logs/a%3Bb%2Fc;tail_offset=10;bytes=1024;until_ms=-5",
      ],
    },
    64,
  );
  assert.deepEqual(a?.query.start, {});
  assert.equal(a?.query.count, undefined);
  assert.deepEqual(b?.query.start, { seq_num: "100" });
  assert.equal(b?.query.count, 500n);
  assert.equal(b?.query.clamp, true);
  assert.equal(c?.key, "a;b/c");
  assert.deepEqual(c?.query.start, { tail_offset: "10" });
  assert.equal(c?.query.bytes, 1024n);
  assert.equal(c?.query.until_ms, "-5");
});

test("too many streams, one named twice, or a malformed one is refused naming it", () => {
  const cases: [unknown, string][] = [
    [undefined, "stream"],
    [[], "stream"],
    [["a1b/w", "a1b/x", "a1b/y", "a1b/z"], "stream"],
    [["abc/x", "abc/y", "abc/x"], "stream[2]"],
    [["abc/x", "abc/%78"], "stream[1]"],
    ["no-slash", "stream[0]"],
    ["A_B/x", "stream[0].bucket"],
    ["abc/", "stream[0].key"],
    ["abc/%E0%A4%A", "stream[0].key"],
    ["abc/%FF", "stream[0].key"],
    [`abc/${"k".repeat(MAX_STREAM_KEY_BYTES + 1)}`, "stream[0].key"],
    ["abc/x;wait=5", "stream[0].wait"],
    ["abc/x;int64=string", "stream[0].int64"],
    ["abc/x;seq_num", "stream[0].seq_num"],
    ["abc/x;seq_num=1;seq_num=2", "stream[0].seq_num"],
    ["abc/x;seq_num=1;tail_offset=2", "stream[0].seq_num|tail_offset"],
    ["abc/x;count=-1", "stream[0].count"],
    ["abc/x;count=18446744073709551616", "stream[0].count"],
    ["abc/x;clamp=yes", "stream[0].clamp"],
    ["abc/x;", "stream[0]."],
  ];
  for (const [stream, field] of cases) {
    assertHttpError(() => parseStreamSpecs(stream === undefined ? {} : { stream }, 3), {
      status: 400,
      code: "bad_query",
      field,
    });
  }
});
