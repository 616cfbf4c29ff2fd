// A DS append's body as the records it is stored in: in JSON mode one record per message; else
// the bytes cut into records of at most one record's size. A text/* stream's bytes are cut
// between characters, never inside one: every offset a reader resumes from, and every SSE
// event, then starts and ends on whole characters.
import { MAX_RECORD_BYTES } from "../../contract/wire-limits.ts";
import { payloadTooLarge } from "../errors/index.ts";
import { jsonMessages } from "./json-mode.ts";
import { renderingOf } from "./render.ts";

export function messages(body: Buffer, contentType: string, on: "append" | "create"): Buffer[] {
  const rendering = renderingOf(contentType);
  if (rendering === "json") {
    const all = jsonMessages(body, on);
    const i = all.findIndex((m) => m.length > MAX_RECORD_BYTES);
    if (i >= 0) {
      throw payloadTooLarge(
        "body",
        `message ${i} is ${all[i]?.length} bytes; a JSON message is at most ${MAX_RECORD_BYTES} (one record)`,
      );
    }
    return all;
  }
  return cutBytes(body, MAX_RECORD_BYTES, rendering === "text");
}

/**
 * `body` in pieces of at most `max` bytes (max >= 4); with `text`, a cut never falls before a
 * UTF-8 continuation byte (10xxxxxx) while the piece can give up the at most 3 it takes.
 */
export function cutBytes(body: Buffer, max: number, text: boolean): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  while (at < body.length) {
    let end = Math.min(at + max, body.length);
    if (text && end < body.length) {
      let back = end;
      while (back > end - 3 && ((body[back] ?? 0) & 0xc0) === 0x80) back -= 1;
      if (((body[back] ?? 0) & 0xc0) !== 0x80) end = back;
    }
    out.push(body.subarray(at, end));
    at = end;
  }
  return out;
}
