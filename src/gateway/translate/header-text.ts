// Header values as the client sent them: Node joins a repeated header and reads header bytes
// as Latin-1; these read the one value, and the UTF-8 text, it was.
import { decodeUtf8Exact } from "../../contract/codec/index.ts";
import { badHeader } from "../errors/index.ts";

export type Headers = Readonly<Record<string, string | string[] | undefined>>;

/**
 * A header's one value. Node joins a repeated header's values with ", " (an id may hold that),
 * so the request's raw name-value list tells one sent twice.
 */
export function singleHeader(
  headers: Headers,
  rawHeaders: readonly string[],
  name: string,
): string | undefined {
  const value = headers[name];
  if (value === undefined) return undefined;
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i]?.toLowerCase() === name) count++;
  }
  if (Array.isArray(value) || count > 1) throw badHeader(name, "is given more than once");
  return value;
}

/**
 * A header value as the UTF-8 text the client sent: Node reads header bytes as Latin-1, so
 * "é" sent as UTF-8 arrives as two characters ("Ã©"). Bytes that are not UTF-8 are refused.
 */
export function utf8HeaderText(value: string, name: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range, spelled out
  if (!/[^\x00-\x7f]/.test(value)) return value;
  try {
    return decodeUtf8Exact(Buffer.from(value, "latin1"));
  } catch {
    throw badHeader(name, "is not UTF-8 text");
  }
}
