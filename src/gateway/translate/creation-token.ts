// A create's creation token (nova-request-token, S2's s2-request-token): the UTF-8 text the
// client sent, at most MAX_CREATION_TOKEN_HEADER_BYTES bytes, given once.
import { MAX_CREATION_TOKEN_HEADER_BYTES } from "../../contract/wire-limits.ts";
import { badHeader } from "../errors/index.ts";
import { type Headers, singleHeader, utf8HeaderText } from "./header-text.ts";

/** The token in header `name`, "" without one. */
export function creationToken(
  headers: Headers,
  rawHeaders: readonly string[],
  name: string,
): string {
  const value = singleHeader(headers, rawHeaders, name);
  if (value === undefined) return "";
  // Node's reading has a character per byte.
  if (value.length > MAX_CREATION_TOKEN_HEADER_BYTES) {
    throw badHeader(
      name,
      `must be at most ${MAX_CREATION_TOKEN_HEADER_BYTES} bytes, not ${value.length}`,
    );
  }
  return utf8HeaderText(value, name);
}
