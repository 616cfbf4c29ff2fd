import { createHash } from "node:crypto";
import { ObjectStoreError } from "./errors.ts";

export interface ObjectInfo {
  key: string;
  size: number;
}

/** Bytes [start, end) of an object; the part beyond the object's end is cut off. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface ListPage {
  objects: ObjectInfo[];
  /** Present when the listing was cut short: pass it as `startAfter` for the next page. */
  next?: string;
}

/** A conditional write's condition, as S3's `If-None-Match: *` and `If-Match: <etag>` headers. */
export type PutCondition = { ifNoneMatch: "*" } | { ifMatch: string };

/** An object's bytes with its entity tag, for a conditional write that follows the read. */
export interface VersionedObject {
  body: Buffer;
  etag: string;
}

/**
 * The slice of S3 the star and the gateway use. Keys are ordered by their UTF-8 bytes, as S3
 * orders them. Failures of the backing service surface as ObjectStoreError.
 */
export interface ObjectStore {
  readonly bucket: string;
  put(key: string, body: Uint8Array): Promise<void>;
  /**
   * undefined when the object does not exist; an empty buffer when the range starts past its end.
   * `signal` aborts the request, where the store makes one (a reader that went away).
   */
  get(key: string, range?: ByteRange, signal?: AbortSignal): Promise<Buffer | undefined>;
  /** One page of at most `limit` (default and maximum 1000) objects whose keys start with prefix. */
  list(prefix: string, opts?: { startAfter?: string; limit?: number }): Promise<ListPage>;
  listAll(prefix: string, opts?: { startAfter?: string }): AsyncIterable<ObjectInfo>;
  /** As get, with the object's ETag. */
  getVersioned(key: string): Promise<VersionedObject | undefined>;
  /**
   * PUT only when the condition holds, atomically with respect to every other conditional write:
   * the new ETag, or undefined when it did not hold (S3's 412, and its 409 for a conditional
   * write that raced another on the same key).
   */
  putIf(key: string, body: Uint8Array, condition: PutCondition): Promise<string | undefined>;
  /** Missing keys are not an error. */
  delete(keys: string[]): Promise<void>;
  presignGet(key: string, expiresSeconds: number): Promise<string>;
  close(): void;
}

/** S3 caps a listing page and a multi-object delete at 1000 keys. */
export const MAX_PAGE = 1000;
const MAX_KEY_BYTES = 1024;

/** S3's key order: by UTF-8 bytes, which differs from JS string order for astral characters. */
export function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

export function checkKey(key: string): void {
  // A lone surrogate has no UTF-8: it would be stored as U+FFFD, another key than the one given.
  if (!key.isWellFormed()) {
    throw new ObjectStoreError(
      "other",
      key,
      "invalid object key: not well-formed UTF-16 (a lone surrogate), so it has no UTF-8 form",
    );
  }
  const bytes = Buffer.byteLength(key, "utf8");
  if (bytes === 0 || bytes > MAX_KEY_BYTES) {
    throw new ObjectStoreError(
      "other",
      key,
      `invalid object key: must be 1 to ${MAX_KEY_BYTES} UTF-8 bytes, got ${bytes}`,
    );
  }
}

export function checkRange(key: string, range: ByteRange): void {
  const { start, end } = range;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start) {
    throw new ObjectStoreError(
      "other",
      key,
      `invalid byte range [${start}, ${end}): expected integers with 0 <= start <= end`,
    );
  }
}

export function pageLimit(limit: number | undefined): number {
  if (limit === undefined) return MAX_PAGE;
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new ObjectStoreError("other", undefined, `invalid list limit ${limit}: expected >= 1`);
  }
  return Math.min(limit, MAX_PAGE);
}

/** S3 signs URLs for at most 7 days. */
const MAX_PRESIGN_SECONDS = 7 * 24 * 3600;

export function checkExpiry(key: string, expiresSeconds: number): void {
  if (
    !Number.isSafeInteger(expiresSeconds) ||
    expiresSeconds < 1 ||
    expiresSeconds > MAX_PRESIGN_SECONDS
  ) {
    throw new ObjectStoreError(
      "other",
      key,
      `invalid expiry ${expiresSeconds}s: expected 1 to ${MAX_PRESIGN_SECONDS}`,
    );
  }
}

export function closedError(key: string | undefined): ObjectStoreError {
  return new ObjectStoreError("other", key, "the object store is closed");
}

/** A page of a listing: when the store says there is more, the next page starts after its last key. */
export function listPage(objects: ObjectInfo[], truncated: boolean | undefined): ListPage {
  const page: ListPage = { objects };
  const last = objects.at(-1);
  if (truncated && last !== undefined) page.next = last.key;
  return page;
}

/** listAll in terms of list, so that every store pages the same way. */
export async function* listPages(
  list: ObjectStore["list"],
  prefix: string,
  startAfter: string | undefined,
): AsyncIterable<ObjectInfo> {
  let after = startAfter;
  for (;;) {
    const page = await list(prefix, after === undefined ? {} : { startAfter: after });
    yield* page.objects;
    if (page.next === undefined) return;
    after = page.next;
  }
}

/** S3's ETag of an object PUT in one part: its MD5, quoted. */
export function md5Etag(body: Uint8Array): string {
  return `"${createHash("md5").update(body).digest("hex")}"`;
}
