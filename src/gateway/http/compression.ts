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

const ENCODINGS = ["zstd", "br", "gzip"] as const;

/**
 * `*` spelled out as each of the gateway's encodings the header does not name, with its
 * parameters (q): the plugin reads `*` as gzip, so `gzip;q=0, *` would get the gzip the client
 * refused, and a bare `*` gzip rather than zstd.
 */
export function spellOutWildcard(header: string): string {
  const parts = header.split(",").map((part) => part.trim());
  const names = new Set(parts.map((part) => (part.split(";")[0] ?? "").trim().toLowerCase()));
  if (!names.has("*")) return header;
  if (names.has("x-gzip")) names.add("gzip");
  const out: string[] = [];
  for (const part of parts) {
    const [name = "", ...params] = part.split(";");
    if (name.trim() !== "*") {
      if (part !== "") out.push(part);
      continue;
    }
    for (const encoding of ENCODINGS) {
      if (!names.has(encoding)) out.push([encoding, ...params].join(";"));
    }
  }
  return out.join(", ");
}

export const compressionPlugin = fp(async (app: FastifyInstance, opts: CompressionSettings) => {
  app.addHook("onRequest", async (req) => {
    const header = req.headers["accept-encoding"];
    if (header?.includes("*")) req.headers["accept-encoding"] = spellOutWildcard(header);
  });
  await app.register(compress, {
    // The client's preference wins; on a tie (`*`, equal q) the first of these. The plugin's
    // types (JSON, text: /metrics too; never text/event-stream) and br at quality 4 stand.
    encodings: [...ENCODINGS],
    threshold: opts.minBytes,
    globalDecompression: false,
  });
});
