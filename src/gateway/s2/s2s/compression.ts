// The payload compression of s2s frames (node:zlib's one-shot calls: computation, no I/O), and
// which one a response uses, chosen from the request's Accept-Encoding as S2 does.
import { gunzipSync, gzipSync, zstdCompressSync, zstdDecompressSync } from "node:zlib";
import { type Compression, FrameError, MAX_FRAME_PAYLOAD_BYTES } from "./frame.ts";

/** S2 sends payloads under 1 KiB uncompressed: compressing them costs more than it saves. */
export const COMPRESSION_THRESHOLD_BYTES = 1024;

/** zstd if the client accepts it, else gzip if it does, else none (S2's preference). */
export function responseCompression(acceptEncoding: string | string[] | undefined): Compression {
  const values = Array.isArray(acceptEncoding) ? acceptEncoding : [acceptEncoding ?? ""];
  let gzip = false;
  for (const value of values) {
    for (const item of value.split(",")) {
      const coding = (item.split(";")[0] as string).trim().toLowerCase();
      if (coding === "zstd") return "zstd";
      if (coding === "gzip") gzip = true;
    }
  }
  return gzip ? "gzip" : "none";
}

/** The payload to frame and the compression its flag names (none below the threshold). */
export function compressPayload(
  payload: Uint8Array,
  compression: Compression,
): { compression: Compression; payload: Uint8Array } {
  if (payload.length > MAX_FRAME_PAYLOAD_BYTES) {
    throw new FrameError(`payload of ${payload.length} bytes exceeds the frame limit`);
  }
  if (compression === "none" || payload.length < COMPRESSION_THRESHOLD_BYTES) {
    return { compression: "none", payload };
  }
  const packed = compression === "gzip" ? gzipSync(payload) : zstdCompressSync(payload);
  // Incompressible data can grow past the limit; it goes as it is instead.
  if (packed.length > MAX_FRAME_PAYLOAD_BYTES) return { compression: "none", payload };
  return { compression, payload: packed };
}

/** The payload a frame carries, decompressed within the frame limit; FrameError otherwise. */
export function decompressPayload(payload: Uint8Array, compression: Compression): Uint8Array {
  if (compression === "none") return payload;
  const options = { maxOutputLength: MAX_FRAME_PAYLOAD_BYTES };
  try {
    return compression === "gzip"
      ? gunzipSync(payload, options)
      : zstdDecompressSync(payload, options);
  } catch (err) {
    throw new FrameError(`${compression} payload does not decompress: ${(err as Error).message}`);
  }
}
