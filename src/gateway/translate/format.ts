// The record format (`raw` or `base64`) and the byte <-> JSON-string conversions it governs, for
// header names, header values and bodies alike, in both directions.

import { decodeUtf8Exact } from "../../contract/codec/index.ts";
import { badBase64, badHeader, badQuery, invalidArgument, notUtf8 } from "../errors/index.ts";
import { decodeBase64, encodeBase64 } from "./base64.ts";
import { asWellFormed } from "./fields.ts";
import { type Query, queryParam } from "./query-params.ts";

export type RecordFormat = "raw" | "base64";

export const FORMAT_HEADER = "nova-format";

const FORMATS: readonly string[] = ["raw", "base64"];

/**
 * The `format` query parameter, else the `nova-format` header, else `raw`. The query wins (an
 * EventSource cannot set headers), and a header the query overrides is not looked at.
 */
export function resolveFormat(query: Query, header: string | string[] | undefined): RecordFormat {
  const fromQuery = queryParam(query, "format");
  if (fromQuery !== undefined) {
    if (FORMATS.includes(fromQuery)) return fromQuery as RecordFormat;
    throw badQuery("format", `must be "raw" or "base64", not ${JSON.stringify(fromQuery)}`);
  }
  if (header === undefined) return "raw";
  if (typeof header === "string" && FORMATS.includes(header)) return header as RecordFormat;
  throw badHeader(FORMAT_HEADER, `must be "raw" or "base64", not ${JSON.stringify(header)}`);
}

/** Record bytes from a JSON string in the request (`field` names it for errors). */
export function bytesFromJson(text: string, format: RecordFormat, field: string): Buffer {
  if (format === "base64") return decodeBase64(text, field, badBase64);
  return Buffer.from(asWellFormed(text, field, invalidArgument), "utf8");
}

/** A JSON string for record bytes in the response; in `raw`, 422 not_utf8 unless valid UTF-8. */
export function bytesToJson(
  bytes: Uint8Array,
  format: RecordFormat,
  seqNum: string | bigint,
  field: string,
): string {
  if (format === "base64") return encodeBase64(bytes);
  try {
    return decodeUtf8Exact(bytes);
  } catch {
    throw notUtf8(BigInt(seqNum), field);
  }
}
