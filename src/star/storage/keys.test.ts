import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import {
  chunkKey,
  decodeKeySegment,
  encodeKeySegment,
  parseChunkKey,
  streamKey,
  streamKeyFromObject,
  streamsPrefixOf,
} from "./keys.ts";

const compareBytes = (a: Uint8Array, b: Uint8Array) =>
  Buffer.compare(Buffer.from(a), Buffer.from(b));
const compareStrings = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

test("key segments round-trip", () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 600 }), (bytes) => {
      assert.deepEqual(decodeKeySegment(encodeKeySegment(bytes)), bytes);
    }),
  );
});

test("key segments keep byte order, so listings come out in key order", () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 300 }), fc.uint8Array({ maxLength: 300 }), (a, b) => {
      assert.equal(
        Math.sign(compareStrings(encodeKeySegment(a), encodeKeySegment(b))),
        Math.sign(compareBytes(a, b)),
      );
    }),
  );
});

test("a 512-byte key fits a 1024-byte object key with every segment under 255 bytes", () => {
  const key = "\u{10FFFF}".repeat(128);
  const objectKey = streamKey("a-bucket-name-of-forty-eight-characters-long-xxxx", key);
  assert.ok(objectKey.length < 1024);
  for (const part of objectKey.split("/")) assert.ok(part.length <= 200);
  assert.equal(
    streamKeyFromObject("a-bucket-name-of-forty-eight-characters-long-xxxx", objectKey),
    key,
  );
});

test("any stream key comes back from its object key as written, a leading U+FEFF included", () => {
  const bucket = "b-bucket";
  for (const key of ["\uFEFF", "\uFEFFk", "k\uFEFF"]) {
    assert.equal(streamKeyFromObject(bucket, streamKey(bucket, key)), key);
  }
  fc.assert(
    fc.property(fc.string({ unit: "binary", maxLength: 100 }), (key) => {
      assert.equal(streamKeyFromObject(bucket, streamKey(bucket, key)), key);
    }),
  );
});

test("chunk keys carry the index fields exactly", () => {
  fc.assert(
    fc.property(
      fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
      fc.nat(),
      fc.nat(),
      fc.nat(),
      fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
      fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
      (firstSeqNum, count, footerLength, contentBytes, minTimestampMs, maxTimestampMs) => {
        const name = {
          firstSeqNum,
          count,
          footerLength,
          contentBytes,
          minTimestampMs,
          maxTimestampMs,
        };
        assert.deepEqual(parseChunkKey("s1", chunkKey("s1", name)), name);
      },
    ),
  );
  // Keys written before negative times were allowed parse as they did.
  assert.deepEqual(parseChunkKey("s1", "chunks/s1/00000000000000000007-3-120-30-5-9"), {
    firstSeqNum: 7n,
    count: 3,
    footerLength: 120,
    contentBytes: 30,
    minTimestampMs: 5n,
    maxTimestampMs: 9n,
  });
  assert.equal(parseChunkKey("s1", "chunks/s1/00000000000000000007--3-120-30-5-9"), undefined);
  assert.equal(parseChunkKey("s1", "chunks/s2/x"), undefined);
  assert.equal(parseChunkKey("s1", "chunks/s1/garbage"), undefined);
});

test("chunk keys sort by first seq_num", () => {
  const base = {
    count: 1,
    footerLength: 1,
    contentBytes: 1,
    minTimestampMs: 0n,
    maxTimestampMs: 0n,
  };
  const a = chunkKey("s", { ...base, firstSeqNum: 9n });
  const b = chunkKey("s", { ...base, firstSeqNum: 10n });
  assert.ok(a < b);
});

test("a prefix ending in half a surrogate pair still lists the keys it begins", () => {
  const emoji = "a\u{1F600}";
  assert.ok(streamKey("b", emoji).startsWith(streamsPrefixOf("b", "a\uD83D")));
  assert.ok(streamKey("b", "\u{1F600}x").startsWith(streamsPrefixOf("b", "\uD83D")));
});

test("every stream key beginning with a prefix lies under the prefix's listing", () => {
  fc.assert(
    fc.property(
      fc.string({ unit: "binary", maxLength: 200 }),
      fc.string({ unit: "binary", maxLength: 200 }),
      (prefix, rest) => {
        assert.ok(streamKey("b", prefix + rest).startsWith(streamsPrefixOf("b", prefix)));
      },
    ),
  );
});
