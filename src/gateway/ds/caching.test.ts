import assert from "node:assert/strict";
import { test } from "node:test";
import { etagMatches } from "../http/index.ts";
import { cacheHeaders, etagOf } from "./caching.ts";

const record = (seq: bigint) => ({
  seq_num: String(seq),
  timestamp_ms: "0",
  headers: [],
  body: Buffer.from("x"),
});
/** A page of the records from `first` to `next`. */
const page = (next: bigint, closed = false, first = 0n) => ({
  records: Array.from({ length: Number(next - first) }, (_, i) => record(first + BigInt(i))),
  next,
  tail: next,
  closed,
});

test("data pages are public without a credential, private with one; 0 turns it off", () => {
  assert.deepEqual(cacheHeaders(60, false), {
    "cache-control": "public, max-age=60, stale-while-revalidate=300",
  });
  assert.match(cacheHeaders(60, true)["cache-control"] ?? "", /^private, max-age=60/);
  assert.deepEqual(cacheHeaders(0, false), { "cache-control": "no-store" });
});

test("the ETag changes with the stream, the range and the closing", () => {
  const open = etagOf("s1", "-1", page(3n));
  assert.notEqual(open, etagOf("s2", "-1", page(3n)));
  assert.notEqual(open, etagOf("s1", "-1", page(4n)));
  assert.notEqual(open, etagOf("s1", "0000000000000001_0000000000000000", page(3n)));
  assert.notEqual(open, etagOf("s1", "-1", page(3n, true)));
  // A trim moves where a page from below it starts: the same range asked, other data served.
  assert.notEqual(open, etagOf("s1", "-1", page(3n, false, 1n)));
  assert.ok(etagMatches(open, open));
  assert.ok(!etagMatches('"wrong-etag"', open));
});
