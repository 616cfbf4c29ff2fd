import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { readBatchJsonBytes } from "../translate/index.ts";
import {
  etagMatches,
  pageCacheControl,
  pageEtag,
  pageIsSettled,
  varyWith,
} from "./page-caching.ts";

const records = (...seqs: number[]) => seqs.map((seq_num) => ({ seq_num }));
const at = (seq_num: number | string) => ({ seq_num });

test("a page from a seq_num or a timestamp that stopped short of the tail is settled", () => {
  assert.equal(
    pageIsSettled({ start: { seq_num: "0" }, records: records(0, 1), tail: at(3) }),
    true,
  );
  assert.equal(
    pageIsSettled({ start: { timestamp_ms: "5" }, records: records(4), tail: at(9) }),
    true,
  );
});

test("a page that reached the tail, is empty, or starts from the tail is not", () => {
  assert.equal(
    pageIsSettled({ start: { seq_num: "0" }, records: records(0, 1), tail: at(2) }),
    false,
  );
  assert.equal(pageIsSettled({ start: { seq_num: "5" }, records: [], tail: at(9) }), false);
  assert.equal(
    pageIsSettled({ start: { tail_offset: "5" }, records: records(4), tail: at(9) }),
    false,
  );
  assert.equal(pageIsSettled({ start: {}, records: records(4), tail: at(9) }), false);
  assert.equal(pageIsSettled({ start: { seq_num: "0" }, records: records(0), tail: null }), false);
});

test("on a closed stream a page that reached the tail is settled too", () => {
  const page = { start: { seq_num: "0" }, records: records(0, 1), tail: at(2), closed: true };
  assert.equal(pageIsSettled(page), true);
});

test("seq_nums past 2^53 are compared exactly", () => {
  const page = {
    start: { seq_num: "9007199254740993" },
    records: [{ seq_num: "9007199254740993" }],
    tail: at("9007199254740994"),
  };
  assert.equal(pageIsSettled(page), false, "the last record is right below the tail");
  assert.equal(pageIsSettled({ ...page, tail: at("9007199254740995") }), true);
});

test("Cache-Control: public without a credential, private with one, no-store unless settled", () => {
  assert.equal(pageCacheControl(true, false, 60), "public, max-age=60");
  assert.equal(pageCacheControl(true, true, 60), "private, max-age=60");
  assert.equal(pageCacheControl(false, false, 60), "no-store");
  assert.equal(pageCacheControl(false, true, 60), "no-store");
  assert.equal(pageCacheControl(true, false, 0), "no-store");
});

const record = fc.record({
  seq_num: fc.nat().map(String),
  timestamp_ms: fc.nat().map(String),
  headers: fc.constant([]),
  body: fc.string().map((s) => Buffer.from(s)),
});
const page = (recs: unknown[], tail: number, closed = false) =>
  readBatchJsonBytes(
    {
      records: recs as Parameters<typeof readBatchJsonBytes>[0]["records"],
      tail: { seq_num: String(tail), timestamp_ms: "7" },
      closed,
    },
    "raw",
    "number",
  );

test("property: the ETag is weak and the same whatever the tail; other records, another ETag", () => {
  fc.assert(
    fc.property(fc.array(record, { maxLength: 5 }), fc.nat(), fc.nat(), (recs, t1, t2) => {
      const etag = pageEtag(page(recs, t1));
      assert.match(etag, /^W\/"[A-Za-z0-9_-]+"$/);
      assert.equal(pageEtag(page(recs, t2, true)), etag);
    }),
  );
  fc.assert(
    fc.property(fc.array(record, { maxLength: 5 }), fc.array(record, { maxLength: 5 }), (a, b) => {
      fc.pre(page(a, 0).toString() !== page(b, 0).toString());
      assert.notEqual(pageEtag(page(a, 0)), pageEtag(page(b, 0)));
    }),
  );
});

test("a body holding the text of the tail field does not cut the ETag short", () => {
  const tricky = (text: string) => ({
    seq_num: "0",
    timestamp_ms: "0",
    headers: [],
    body: Buffer.from(text),
  });
  const a = pageEtag(page([tricky('],"tail":1')], 1));
  const b = pageEtag(page([tricky('],"tail":2')], 1));
  assert.notEqual(a, b);
});

test("If-None-Match compares weakly, takes lists and *, and an absent one matches nothing", () => {
  const etag = 'W/"abc"';
  assert.equal(etagMatches('W/"abc"', etag), true);
  assert.equal(etagMatches('"abc"', etag), true);
  assert.equal(etagMatches('"x", W/"abc"', etag), true);
  assert.equal(etagMatches("*", etag), true);
  assert.equal(etagMatches('"abd"', etag), false);
  assert.equal(etagMatches(undefined, etag), false);
  assert.equal(etagMatches("", etag), false);
});

test("Vary keeps what the response varies on already and adds each name once", () => {
  assert.equal(varyWith(undefined, "accept, nova-format"), "accept, nova-format");
  assert.equal(varyWith("Origin", "accept, nova-format"), "Origin, accept, nova-format");
  assert.equal(
    varyWith("Origin, Accept-Encoding", "accept, accept-encoding"),
    "Origin, Accept-Encoding, accept",
  );
  assert.equal(varyWith("*", "accept"), "*");
  assert.equal(varyWith(" , origin ,", "accept"), "origin, accept");
});

test("property: every name of both is in the Vary once, those already there first", () => {
  const name = fc.constantFrom("Origin", "origin", "accept", "Accept", "nova-format", "x-a");
  fc.assert(
    fc.property(fc.array(name, { maxLength: 4 }), fc.array(name, { minLength: 1 }), (a, b) => {
      const out = varyWith(a.length === 0 ? undefined : a.join(", "), b.join(", ")).split(", ");
      const lower = out.map((n) => n.toLowerCase());
      assert.equal(new Set(lower).size, lower.length);
      assert.deepEqual(new Set(lower), new Set([...a, ...b].map((n) => n.toLowerCase())));
      const firstOfA = [...new Map(a.map((n) => [n.toLowerCase(), n])).keys()];
      assert.deepEqual(lower.slice(0, firstOfA.length), firstOfA);
    }),
  );
});
