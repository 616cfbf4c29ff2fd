// The parts of s3rver 3.7.1's internals that our patches (s3rver-store-fixes.ts,
// s3rver-fixes.ts, s3rver-pooled-reads.ts) and the embedded store (s3rver-server.ts) use, typed
// once: its file-system store, its object model, and a require that resolves its own modules and
// dependencies.
import { createRequire } from "node:module";
import type { Readable } from "node:stream";
import type S3rver from "s3rver";

/** A byte range as s3rver's GET controller passes it on (from a `Range: bytes=` header). */
export interface S3rverRange {
  start?: number;
  end?: number;
}

export interface S3rverObject {
  key: string;
  size: number;
  range?: { start: number; end: number };
  content: Readable | null;
}

/** What s3rver's PUT handler gives its store: the body is the request itself, or bytes. */
export interface PutObject {
  bucket: string;
  key: string;
  content: Readable | Buffer;
  metadata: Record<string, unknown>;
}

export interface FilesystemStore {
  getBucketPath(bucket: string): string;
  getResourcePath(bucket: string, key: string, resource: string): string;
  getMetadata(bucket: string, key: string): Promise<Record<string, unknown>>;
  existsObject(bucket: string, key: string): Promise<boolean>;
  deleteObject(bucket: string, key: string): Promise<void>;
  getObject(bucket: string, key: string, options?: S3rverRange): Promise<S3rverObject | null>;
  putObject(object: PutObject): Promise<{ size: number; md5: string }>;
  putMetadata(
    bucket: string,
    key: string,
    metadata: Record<string, unknown>,
    md5: string,
  ): Promise<void>;
  putBucket(bucket: string): Promise<unknown>;
  listObjects(
    bucket: string,
    options: { delimiter?: string; startAfter?: string; prefix?: string; maxKeys?: number },
  ): Promise<{ objects: S3rverObject[]; commonPrefixes: string[]; isTruncated: boolean }>;
}

/** Requires a module as s3rver itself would. */
export const requireFromS3rver = createRequire(createRequire(import.meta.url).resolve("s3rver"));

/** The one s3rver release these internals, and the patches built on them, were written for. */
export const PATCHED_S3RVER_VERSION = "3.7.1";

/** The installed s3rver's version. */
export const installedS3rverVersion = (requireFromS3rver("../package.json") as { version: string })
  .version;

/** Refuses an s3rver other than the one the patches know, before anything is patched. */
export function checkS3rverVersion(installed: string): void {
  if (installed === PATCHED_S3RVER_VERSION) return;
  throw new Error(
    `the embedded object store patches the internals of s3rver ${PATCHED_S3RVER_VERSION}, ` +
      `but s3rver ${installed} is installed: pin s3rver to ${PATCHED_S3RVER_VERSION} in ` +
      "package.json, or check src/platform/objstore/s3rver-*.ts against the new release",
  );
}

export const S3Object = requireFromS3rver("./models/object.js") as new (
  bucket: string,
  key: string,
  content: Readable | null,
  metadata: Record<string, unknown>,
) => S3rverObject;

/** s3rver's file-system store over `directory`, without its server. */
export function openFilesystemStore(directory: string): FilesystemStore {
  const Store = requireFromS3rver("./stores/filesystem.js") as new (dir: string) => FilesystemStore;
  return new Store(directory);
}

/** The store a server reads and writes objects through. */
export const storeOf = (server: S3rver): FilesystemStore =>
  (server as unknown as { store: FilesystemStore }).store;
