// A request body (or one NDJSON line) as JSON with exact integers; any failure is 400 bad_json,
// and a body of more values than any request within the contract's caps is 413 before they
// are all made: a value costs tens of bytes parsed for as few as three in the body (`{},`), so
// a body at the size limit could take gigabytes (1.6 GiB measured for 57 MB of empty records).
import { MAX_BATCH_RECORDS, MAX_HEADERS_PER_RECORD } from "../../contract/wire-limits.ts";
import { badJson, payloadTooLarge } from "../errors/index.ts";
import { JsonSyntaxError, JsonTooLargeError, parseJsonExact } from "./json-exact.ts";

/**
 * The most JSON values a request body may hold: a batch at the caps, each record an object
 * with a body, a time and a header list of [name, value] pairs or objects (3 values each),
 * and room for the fields around it.
 */
export const MAX_BODY_JSON_VALUES = MAX_BATCH_RECORDS * (4 + 3 * MAX_HEADERS_PER_RECORD) + 64;

// Fatal: invalid UTF-8 is refused, never replaced with U+FFFD (records must stay exact).
// A leading BOM is dropped, which RFC 8259 §8.1 allows a parser to do.
const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Parses UTF-8 JSON bytes; `onValues` hears how many values the parse has made, every
 * JSON_VALUES_STEP of them (a caller counting their memory may stop it by throwing).
 */
export function parseJsonBody(bytes: Uint8Array, onValues?: (values: number) => void): unknown {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw badJson("the body is not valid UTF-8");
  }
  return parseJsonText(text, onValues);
}

/** Parses JSON text already decoded from UTF-8. */
export function parseJsonText(text: string, onValues?: (values: number) => void): unknown {
  try {
    return parseJsonExact(text, MAX_BODY_JSON_VALUES, onValues);
  } catch (e) {
    if (e instanceof JsonSyntaxError) throw badJson(`invalid JSON: ${e.message}`, e.position);
    if (e instanceof JsonTooLargeError) {
      throw payloadTooLarge(
        "body",
        `holds more than ${e.maxValues} JSON values, more than a batch within the caps (${MAX_BATCH_RECORDS} records of at most ${MAX_HEADERS_PER_RECORD} headers each) takes; send smaller batches`,
      );
    }
    throw e;
  }
}
