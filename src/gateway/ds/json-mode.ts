// JSON mode (application/json streams): a POST body is one JSON value, or an array whose
// elements are the messages (one level flattened); each message is one record, stored as the
// text it was sent as (numbers keep every digit). A read returns its records as one JSON array.
import { badJson, invalidArgument } from "../errors/index.ts";

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The messages of a JSON-mode body. An empty array is a 400 on append (a no-op is a client
 * bug) and no messages on create.
 */
export function jsonMessages(body: Uint8Array, on: "append" | "create"): Buffer[] {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw badJson("the body is not UTF-8: JSON mode stores JSON text");
  }
  try {
    JSON.parse(text);
  } catch (err) {
    throw badJson(`the body is not JSON: ${(err as Error).message}`);
  }
  const trimmed = text.trim();
  if (!trimmed.startsWith("[")) return [Buffer.from(trimmed)];
  const elements = arrayElements(trimmed);
  if (elements.length === 0 && on === "append") {
    throw invalidArgument("body", "an empty JSON array appends nothing; send at least one message");
  }
  return elements.map((e) => Buffer.from(e));
}

/** The elements of a valid JSON array's text, each as its own text. */
function arrayElements(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let inString = false;
  let start = 1;
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
      out.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  const last = text.slice(start, text.length - 1).trim();
  if (last !== "" || out.length > 0) out.push(last);
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
