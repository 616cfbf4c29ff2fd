// JSON responses (pages, lists, descriptors) compressed by the client's Accept-Encoding with
// zstd, br or gzip, by Fastify's own plugin. SSE and NDJSON sessions take their response over
// (raw-response.ts), so no onSend hook, this one included, ever sees them: an event stream is
// never buffered in a compressor. Request bodies are not decompressed: a compressed append would
// dodge the body limit and the in-flight admission, which count the bytes that arrive.
import compress from "@fastify/compress";
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";

export interface CompressionSettings {
  /** Bodies smaller than this go uncompressed. */
  minBytes: number;
}

export const compressionPlugin = fp(async (app: FastifyInstance, opts: CompressionSettings) => {
  await app.register(compress, {
    // The client's preference wins; on a tie (`*`, equal q) the first listed. The plugin's
    // types (JSON, text: /metrics too; never text/event-stream) and br at quality 4 stand.
    encodings: ["zstd", "br", "gzip"],
    threshold: opts.minBytes,
    globalDecompression: false,
  });
});
