// Bucket names and stream keys, checked before any star is asked.
import { BUCKET_NAME, MAX_STREAM_KEY_BYTES } from "../../contract/wire-limits.ts";
import { badPath, type FieldError } from "../errors/index.ts";
import { asString, asWellFormed } from "./fields.ts";

/** A bucket name from the path (400 bad_path), or from a body with `err` = invalidArgument. */
export function checkBucketName(
  name: unknown,
  field = "bucket",
  err: FieldError = badPath,
): string {
  const s = asString(name, field, err);
  if (!BUCKET_NAME.test(s)) {
    throw err(
      field,
      `${JSON.stringify(s)} is not a bucket name: 3 to 48 of a-z, 0-9 and "-", not starting or ending with "-"`,
    );
  }
  return s;
}

/** A stream key: any UTF-8, 1 to 512 bytes (already percent-decoded when it came in a path). */
export function checkStreamKey(key: unknown, field = "key", err: FieldError = badPath): string {
  const s = asWellFormed(asString(key, field, err), field, err);
  const size = Buffer.byteLength(s, "utf8");
  if (size === 0 || size > MAX_STREAM_KEY_BYTES) {
    throw err(field, `is ${size} bytes; a stream key is 1 to ${MAX_STREAM_KEY_BYTES} UTF-8 bytes`);
  }
  if (isDotSegment(s)) throw err(field, DOT_SEGMENT);
  return s;
}

/** URL clients resolve a path segment "." or ".." away (RFC 3986 5.2.4), even percent-encoded. */
export function isDotSegment(segment: string): boolean {
  return segment === "." || segment === "..";
}

export const DOT_SEGMENT =
  'is "." or "..", which no URL path can name (clients resolve it away): choose another';
