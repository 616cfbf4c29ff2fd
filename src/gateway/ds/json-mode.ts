// JSON mode (application/json streams): a POST body is one JSON value, or an array whose
// elements are the messages (one level flattened); each message is one record, stored as the
// text it was sent as (numbers keep every digit). A read returns its records as one JSON array.
import { MAX_BATCH_RECORDS } from "../../contract/wire-limits.ts";
import { badJson, invalidArgument, payloadTooLarge } from "../errors/index.ts";

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** JSON's whitespace only: String.trim() also takes a BOM and other spaces JSON refuses. */
const JSON_SPACE = /^[ \t\n\r]+|[ \t\n\r]+$/g;
const jsonTrim = (text: string) => text.replace(JSON_SPACE, "");

/**
 * The messages of a JSON-mode body. An empty array is a 400 on append (a no-op is a client
 * bug) and no messages on create. An array is split at its top-level commas and each element
 * checked as JSON on its own: the whole array is never parsed into values, which for a body of
 * small numbers holds many times its size.
 */
export function jsonMessages(body: Uint8Array, on: "append" | "create"): Buffer[] {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw badJson("the body is not UTF-8: JSON mode stores JSON text");
  }
  const trimmed = jsonTrim(text);
  if (!trimmed.startsWith("[")) {
    checkJson(trimmed, "the body");
    return [Buffer.from(trimmed)];
  }
  if (!trimmed.endsWith("]") || trimmed.length < 2) {
    throw badJson("the body is not JSON: an array that does not end with ]");
  }
  const elements = arrayElements(trimmed);
  elements.forEach((e, i) => {
    checkJson(e, `message ${i}`);
  });
  if (elements.length === 0 && on === "append") {
    throw invalidArgument("body", "an empty JSON array appends nothing; send at least one message");
  }
  return elements.map((e) => Buffer.from(e));
}

function checkJson(text: string, what: string): void {
  try {
    JSON.parse(text);
  } catch (err) {
    throw badJson(`${what} is not JSON: ${(err as Error).message}`);
  }
}

/**
 * The elements of an array's text, each as its own text (trimmed): at most a batch's records,
 * refused as soon as the count passes them rather than once all are split.
 */
function arrayElements(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let inString = false;
  let start = 1;
  const push = (end: number) => {
    if (out.length === MAX_BATCH_RECORDS) {
      throw payloadTooLarge(
        "body",
        `a JSON array appends at most ${MAX_BATCH_RECORDS} messages at once; send the rest in another request`,
      );
    }
    out.push(jsonTrim(text.slice(start, end)));
  };
  for (let i = 1; i < text.length - 1; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === "[" || c === "{") depth++;
    else if (c === "]" || c === "}") depth--;
    else if (c === "," && depth === 0) {
      push(i);
      start = i + 1;
    }
  }
  if (jsonTrim(text.slice(start, text.length - 1)) !== "" || out.length > 0) push(text.length - 1);
  return out;
}

/** Records' bodies as one JSON array. */
export function jsonArray(bodies: readonly Uint8Array[]): Buffer {
  const parts: Uint8Array[] = [OPEN];
  bodies.forEach((b, i) => {
    if (i > 0) parts.push(COMMA);
    parts.push(b);
  });
  parts.push(CLOSE);
  return Buffer.concat(parts);
}

const OPEN = Buffer.from("[");
const COMMA = Buffer.from(",");
const CLOSE = Buffer.from("]");
