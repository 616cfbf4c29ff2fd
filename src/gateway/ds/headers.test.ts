import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { HttpError } from "../errors/index.ts";
import { closedHeader, expiryHeaders, producerHeaders, streamSeqHeader } from "./headers.ts";

/** Headers as Node's rawHeaders gives them: names and values, each sent once. */
const raw = (h: Record<string, string>) => Object.entries(h).flat();
const producerOf = (h: Record<string, string>) => producerHeaders(h, raw(h));
const streamSeqOf = (h: Record<string, string>) => streamSeqHeader(h, raw(h));

const bad = (name: string) => (err: unknown) =>
  err instanceof HttpError && err.status === 400 && err.message.startsWith(`${name}: `);

test("Stream-Closed counts only when it is true, in any case", () => {
  assert.equal(closedHeader({ "stream-closed": "TRUE" }), true);
  for (const v of ["false", "yes", "1", "", undefined]) {
    assert.equal(closedHeader({ "stream-closed": v }), false, String(v));
  }
});

test("Stream-TTL is whole seconds without sign, zeros or exponent", () => {
  assert.deepEqual(expiryHeaders({ "stream-ttl": "3600" }), { idleMs: "3600000", atMs: "0" });
  assert.deepEqual(expiryHeaders({ "stream-ttl": "0" }), { idleMs: "0", atMs: "0" });
  for (const v of ["+3600", "03600", "3600.0", "3.6e3", "-1", "abc", ""]) {
    assert.throws(() => expiryHeaders({ "stream-ttl": v }), bad("stream-ttl"), v);
  }
});

test("Stream-Expires-At is RFC 3339, kept to the millisecond; not with a TTL", () => {
  assert.deepEqual(expiryHeaders({ "stream-expires-at": "2030-01-02T03:04:05.678Z" }), {
    idleMs: "0",
    atMs: String(Date.UTC(2030, 0, 2, 3, 4, 5, 678)),
  });
  assert.equal(
    expiryHeaders({ "stream-expires-at": "2030-01-02T05:04:05+02:00" }).atMs,
    String(Date.UTC(2030, 0, 2, 3, 4, 5)),
  );
  assert.equal(
    expiryHeaders({ "stream-expires-at": "2028-02-29T23:59:59Z" }).atMs,
    String(Date.UTC(2028, 1, 29, 23, 59, 59)),
  );
  for (const v of [
    "tomorrow",
    "2030-01-02",
    "1700000000",
    "2030-13-45T00:00:00Z",
    // Dates and times that do not exist, which Date.parse would roll over.
    "2099-02-30T00:00:00Z",
    "2030-02-29T00:00:00Z",
    "2030-04-31T00:00:00Z",
    "2030-00-10T00:00:00Z",
    "2030-01-00T00:00:00Z",
    "2030-01-02T24:00:00Z",
    "2030-01-02T03:60:00Z",
    "2030-01-02T03:04:61Z",
    "2030-01-02T03:04:05+24:00",
    "2030-01-02T03:04:05+02:60",
  ]) {
    assert.throws(() => expiryHeaders({ "stream-expires-at": v }), bad("stream-expires-at"), v);
  }
  assert.throws(
    () => expiryHeaders({ "stream-ttl": "1", "stream-expires-at": "2030-01-02T03:04:05Z" }),
    bad("stream-ttl"),
  );
});

test("producer headers come all three or none, integers up to 2^53-1", () => {
  assert.equal(producerOf({}), undefined);
  assert.deepEqual(
    producerOf({
      "producer-id": "p",
      "producer-epoch": "2",
      "producer-seq": "9007199254740991",
    }),
    { id: "p", epoch: 2n, seq: 9007199254740991n },
  );
  assert.throws(() => producerOf({ "producer-id": "p" }), bad("producer-id"));
  assert.throws(
    () => producerOf({ "producer-id": "", "producer-epoch": "0", "producer-seq": "0" }),
    bad("producer-id"),
  );
  for (const v of ["-1", "1.5", "x", "9007199254740992", "01"]) {
    assert.throws(
      () => producerOf({ "producer-id": "p", "producer-epoch": v, "producer-seq": "0" }),
      bad("producer-epoch"),
      v,
    );
    assert.throws(
      () => producerOf({ "producer-id": "p", "producer-epoch": "0", "producer-seq": v }),
      bad("producer-seq"),
      v,
    );
  }
});

test("a producer header or Stream-Seq sent twice is a 400, not the two values joined", () => {
  // Node joins a repeated header's values with ", "; rawHeaders has each as sent.
  const stamp = { "producer-id": "q, r", "producer-epoch": "0", "producer-seq": "0" };
  const twice = [
    "producer-id",
    "q",
    "producer-id",
    "r",
    "producer-epoch",
    "0",
    "producer-seq",
    "0",
  ];
  assert.throws(() => producerHeaders(stamp, twice), bad("producer-id"));
  const seqTwice = ["stream-seq", "a", "Stream-Seq", "b"];
  assert.throws(() => streamSeqHeader({ "stream-seq": "a, b" }, seqTwice), bad("stream-seq"));
});

test("Stream-Seq is any 1 to 1024 bytes", () => {
  assert.equal(streamSeqOf({}), undefined);
  assert.equal(streamSeqOf({ "stream-seq": "001" }), "001");
  for (const v of ["", "x".repeat(1025)]) {
    assert.throws(() => streamSeqOf({ "stream-seq": v }), bad("stream-seq"));
  }
});

test("every real instant written as RFC 3339 reads back to its millisecond", () => {
  fc.assert(
    fc.property(
      fc.date({
        min: new Date("1970-01-02T00:00:00Z"),
        max: new Date("9999-12-31T23:59:59Z"),
        noInvalidDate: true,
      }),
      (d) => {
        assert.equal(
          expiryHeaders({ "stream-expires-at": d.toISOString() }).atMs,
          String(d.getTime()),
        );
      },
    ),
  );
});
