// How a DS stream's records are served: concatenated bytes (the protocol's byte stream), or in
// JSON mode one JSON array of the messages; in SSE mode the same as text for JSON and text/*
// streams, else base64 (with the stream-sse-data-encoding header).
import { mediaType } from "../../contract/media-type.ts";
import type { Record__Output } from "../../gen/nova/v1/Record.ts";
import { jsonArray } from "./json-mode.ts";

export type Rendering = "json" | "text" | "base64";

export function renderingOf(contentType: string): Rendering {
  const type = mediaType(contentType);
  if (type === "application/json") return "json";
  return type.startsWith("text/") ? "text" : "base64";
}

export function isJsonMode(contentType: string): boolean {
  return renderingOf(contentType) === "json";
}

/** A page read's body. */
export function renderBody(records: readonly Record__Output[], json: boolean): Buffer {
  const bodies = records.map((r) => r.body);
  return json ? jsonArray(bodies) : Buffer.concat(bodies);
}

/** One `event: data` with the records, each line of the payload its own `data:` line. */
export function renderSse(records: readonly Record__Output[], rendering: Rendering): string {
  const bytes = renderBody(records, rendering === "json");
  const payload = rendering === "base64" ? bytes.toString("base64") : bytes.toString("utf8");
  return sseEvent("data", payload);
}

/**
 * An SSE event. A line goes after `data:` as it is, or after `data: ` when it starts with a
 * space (a reader drops one leading space), so every line reads back exactly.
 */
export function sseEvent(type: string, payload: string): string {
  const lines = payload
    .split(/\r\n|\r|\n/)
    .map((line) => (line.startsWith(" ") ? `data: ${line}\n` : `data:${line}\n`));
  return `event: ${type}\n${lines.join("")}\n`;
}
