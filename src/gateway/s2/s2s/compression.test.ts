import assert from "node:assert/strict";
import { test } from "node:test";
import { gzipSync, zstdCompressSync } from "node:zlib";
import fc from "fast-check";
import {
  COMPRESSION_THRESHOLD_BYTES,
  compressPayload,
  decompressPayload,
  responseCompression,
} from "./compression.ts";
import { FrameError, MAX_FRAME_PAYLOAD_BYTES } from "./frame.ts";

const algo = fc.constantFrom("none" as const, "zstd" as const, "gzip" as const);

test("decompress(compress(payload)) is the payload, compressed only from the threshold", () => {
  fc.assert(
    fc.property(
      algo,
      fc.uint8Array({ maxLength: 4096 }),
      fc.nat(3000),
      (compression, tail, pad) => {
        // Padding makes compressible payloads on both sides of the threshold.
        const payload = Uint8Array.from([...new Uint8Array(pad), ...tail]);
        const packed = compressPayload(payload, compression);
        if (payload.length < COMPRESSION_THRESHOLD_BYTES) assert.equal(packed.compression, "none");
        assert.deepEqual([...decompressPayload(packed.payload, packed.compression)], [...payload]);
      },
    ),
    { numRuns: 50 },
  );
});

test("a payload that inflates past the frame limit is refused", () => {
  const bomb = new Uint8Array(MAX_FRAME_PAYLOAD_BYTES + 1);
  assert.throws(() => decompressPayload(gzipSync(bomb), "gzip"), FrameError);
  assert.throws(() => decompressPayload(zstdCompressSync(bomb), "zstd"), FrameError);
  assert.equal(
    decompressPayload(gzipSync(bomb.subarray(1)), "gzip").length,
    MAX_FRAME_PAYLOAD_BYTES,
  );
});

test("bytes that are not gzip or zstd are refused", () => {
  assert.throws(() => decompressPayload(Uint8Array.of(1, 2, 3), "gzip"), FrameError);
  assert.throws(() => decompressPayload(Uint8Array.of(1, 2, 3), "zstd"), FrameError);
});

test("a payload over the frame limit is not compressed", () => {
  assert.throws(
    () => compressPayload(new Uint8Array(MAX_FRAME_PAYLOAD_BYTES + 1), "none"),
    FrameError,
  );
});

test("incompressible data past the limit once compressed goes uncompressed", () => {
  const noise = new Uint8Array(MAX_FRAME_PAYLOAD_BYTES);
  for (let i = 0; i < noise.length; i += 65_536)
    crypto.getRandomValues(noise.subarray(i, i + 65_536));
  const packed = compressPayload(noise, "gzip");
  assert.equal(packed.compression, "none");
  assert.equal(packed.payload, noise);
});

test("responses use zstd if accepted, else gzip, else none", () => {
  assert.equal(responseCompression(undefined), "none");
  assert.equal(responseCompression("identity"), "none");
  assert.equal(responseCompression("gzip"), "gzip");
  assert.equal(responseCompression("GZIP;q=0.5, zstd"), "zstd");
  assert.equal(responseCompression(["br", "gzip"]), "gzip");
});
