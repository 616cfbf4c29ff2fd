// A request body (or one NDJSON line) as JSON with exact integers; any failure is 400 bad_json.
import { badJson } from "../errors/index.ts";
import { JsonSyntaxError, parseJsonExact } from "./json-exact.ts";

// Fatal: invalid UTF-8 is refused, never replaced with U+FFFD (records must stay exact).
// A leading BOM is dropped, which RFC 8259 §8.1 allows a parser to do.
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Parses UTF-8 JSON bytes. */
export function parseJsonBody(bytes: Uint8Array): unknown {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw badJson("the body is not valid UTF-8");
  }
  return parseJsonText(text);
}

/** Parses JSON text already decoded from UTF-8. */
export function parseJsonText(text: string): unknown {
  try {
    return parseJsonExact(text);
  } catch (e) {
    if (e instanceof JsonSyntaxError) throw badJson(`invalid JSON: ${e.message}`, e.position);
    throw e;
  }
}
