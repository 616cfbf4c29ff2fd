// s3rver 3.7.1's file-system store diverges from S3 in ways the star would trip over; this
// patches the store in place (the embedded store's own process reads and writes through it, and
// so does s3rver's HTTP side once it serves: s3rver-server.ts):
// - it lists keys in file-system walk order ("a/b" before "a-c", "a" after "a.0"), so paging
//   from a marker skips keys;
// - its parallel deletes race on removing emptied directories, and a delete removes the
//   directories it empties, so a PUT under the same prefix that made its directory a moment
//   before writes into nothing: its file stream fails with no listener and takes the process
//   down (S3 has no directories: deletes here leave them, empty);
// - a range read of an empty object announces one byte and sends none (the client sees a reset);
// - a PUT writes its body straight into the object's file, so the key is listed, empty or partial,
//   from the first byte, and stays so when the upload is cut (a star killed mid-PUT) or the store
//   dies: S3 shows an object only once its whole body arrived. Here the body goes to a file
//   beside it that listings pass over, renamed over the key once complete; a cut upload leaves
//   nothing; its metadata and ETag files were rewritten in place, so a GET racing a PUT could
//   read them empty (a 500) or half written: they are replaced by a rename too.
// - it writes a metadata file for every object; an object with S3's default metadata for a
//   client's PUT (DEFAULT_METADATA) gets none here, and reads it back from its absence: a file less to
//   create and rename per PUT (docs/operating.md, "Object storage").
// Not patched: keys with empty or "."/".." path segments alias other keys ("a//b" is "a/b").
import { createHash, randomBytes } from "node:crypto";
import {
  createWriteStream,
  type Dirent,
  existsSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { mkdir, readFile, rename, unlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { setImmediate } from "node:timers/promises";
import { compareKeys, md5Etag } from "./object-store.ts";
import { type FilesystemStore, type PutObject, S3Object } from "./s3rver-internals.ts";

const OBJECT_SUFFIX = "._S3rver_object";

/**
 * What s3rver keeps for an object PUT over HTTP as the S3 store sends it (and as S3 stores one
 * without a Content-Type), and for every object PUT in place: an object with exactly this has no
 * metadata file.
 */
export const DEFAULT_METADATA: Readonly<Record<string, string>> = {
  "content-type": "application/octet-stream",
};

const isDefault = (kept: [string, unknown][]): boolean =>
  kept.length === 1 &&
  kept[0]?.[0] === "content-type" &&
  kept[0][1] === DEFAULT_METADATA["content-type"];

function readDir(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    // A delete emptied and removed the directory meanwhile.
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
}

/**
 * Keys under dir in S3 order. A file "x._S3rver_object" is the key fragment "x", a directory "x"
 * stands for the fragments "x/...": sorting entries by fragment orders the keys.
 */
function* walkKeys(
  dir: string,
  keyPrefix: string,
  prefix: string,
  startAfter: string,
): Generator<string> {
  const entries: { fragment: string; subdir?: string }[] = [];
  for (const entry of readDir(dir)) {
    if (entry.isDirectory()) entries.push({ fragment: `${entry.name}/`, subdir: entry.name });
    else if (entry.name.endsWith(OBJECT_SUFFIX)) {
      entries.push({ fragment: entry.name.slice(0, -OBJECT_SUFFIX.length) });
    }
  }
  entries.sort((a, b) => compareKeys(a.fragment, b.fragment));
  for (const { fragment, subdir } of entries) {
    const key = keyPrefix + fragment;
    if (subdir === undefined) {
      yield key;
      continue;
    }
    const meetsPrefix = key.startsWith(prefix) || prefix.startsWith(key);
    const allBeforeStart = compareKeys(key, startAfter) < 0 && !startAfter.startsWith(key);
    if (meetsPrefix && !allBeforeStart) yield* walkKeys(join(dir, subdir), key, prefix, startAfter);
  }
}

/** s3rver's listObjects (same options and result), in S3 order. */
async function listObjects(
  store: FilesystemStore,
  bucket: string,
  options: { delimiter?: string; startAfter?: string; prefix?: string; maxKeys?: number },
) {
  const {
    delimiter = "",
    startAfter = "",
    prefix = "",
    maxKeys = Number.POSITIVE_INFINITY,
  } = options;
  const found: InstanceType<typeof S3Object>[] = [];
  const commonPrefixes = new Set<string>();
  let isTruncated = false;
  // Keys deleted while the page is read leave it short: the walk goes on from the last key it
  // walked, or a page they emptied would end the listing (its next marker is its last object).
  let after = startAfter;
  for (;;) {
    const keys: string[] = [];
    isTruncated = false;
    for (const key of walkKeys(store.getBucketPath(bucket), "", prefix, after)) {
      if (compareKeys(key, after) <= 0 || !key.startsWith(prefix)) continue;
      const cut = delimiter ? key.indexOf(delimiter, prefix.length) : -1;
      if (cut !== -1) {
        commonPrefixes.add(key.slice(0, cut + delimiter.length));
        continue;
      }
      if (found.length + keys.length === maxKeys) {
        isTruncated = true;
        break;
      }
      keys.push(key);
    }
    const objects = await Promise.all(
      keys.map(async (key) => {
        try {
          return new S3Object(bucket, key, null, await store.getMetadata(bucket, key));
        } catch (err) {
          // deleted while listing
          if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
          throw err;
        }
      }),
    );
    for (const o of objects) if (o !== undefined) found.push(o);
    const last = keys.at(-1);
    if (!isTruncated || found.length === maxKeys || last === undefined) break;
    after = last;
  }
  return {
    objects: found,
    commonPrefixes: [...commonPrefixes].sort(compareKeys),
    isTruncated,
  };
}

/** Multi-object delete with keys taken verbatim, deleted one at a time. */
/** The key a conditional PUT takes its turn on. */
export const turnKey = (bucket: string, key: string): string => `${bucket}/${key}`;

/**
 * The stored object's ETag, or undefined when there is none: of its bytes, as a GET gives it,
 * not from the .md5 file beside them, which a PUT cut short by a kill -9 leaves newer than the
 * bytes (it is renamed first), so a conditional write would never match again.
 */
export function etagOf(store: FilesystemStore, bucket: string, key: string) {
  return readFile(store.getResourcePath(bucket, key, "object")).then(md5Etag, (err: unknown) => {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  });
}

/** Applies the fixes to s3rver's file-system store, before anything reads or writes through it. */
export function fixS3rverStore(store: FilesystemStore): void {
  store.listObjects = (bucket, options) => listObjects(store, bucket, options);
  // The object's file first: an object is there while that file is. Synchronous, as a PUT in
  // place is: an unlink cost 18 µs of CPU where the promise API's took 57 (a log object's files,
  // deleted once settled). Then one yield, so a loop of deletes lets other I/O run.
  store.deleteObject = async (bucket, key) => {
    for (const resource of ["object", "object.md5", "metadata.json"]) {
      removeIfThere(store.getResourcePath(bucket, key, resource));
    }
    await setImmediate();
  };
  const getMetadata = store.getMetadata.bind(store);
  // s3rver reads a missing metadata file as no metadata (and answers binary/octet-stream); here
  // it is the default's, which putMetadata leaves unwritten. Only a metadata without a
  // content-type needs the look: a file could hold such metadata too.
  store.getMetadata = async (bucket, key) => {
    const metadata = await getMetadata(bucket, key);
    if ("content-type" in metadata) return metadata;
    if (existsSync(store.getResourcePath(bucket, key, "metadata.json"))) return metadata;
    return { ...DEFAULT_METADATA, ...metadata };
  };
  store.putObject = (object) => putObject(store, object);
  store.putMetadata = (bucket, key, metadata, md5) =>
    putMetadata(store, bucket, key, metadata, md5);
  const getObject = store.getObject.bind(store);
  store.getObject = async (bucket, key, options) => {
    const object = await getObject(bucket, key, options);
    if (object?.range !== undefined && object.size === 0) {
      // No content makes s3rver answer 416, as S3 does for a range of an empty object.
      object.content?.destroy();
      object.content = null;
    }
    return object;
  };
}

const ALLOWED_METADATA = (S3Object as unknown as { ALLOWED_METADATA: string[] }).ALLOWED_METADATA;

/** A file written beside its path, then renamed over it: readers see the old file or the new. */
interface Replacement {
  path: string;
  part: string;
  content: string | Buffer;
}

/** Files to replace, then a file to remove after them (one an earlier version left). */
interface FileChanges {
  files: Replacement[];
  stale?: string;
}

/**
 * s3rver's metadata files for an object (the same files and content as its putMetadata), but no
 * metadata file for the default metadata: then that file is stale, for a version before with
 * other metadata to lose.
 */
function metadataFiles(
  store: FilesystemStore,
  bucket: string,
  key: string,
  metadata: Record<string, unknown>,
  md5: string,
): FileChanges {
  const kept = Object.entries(metadata).filter(
    ([name]) => ALLOWED_METADATA.includes(name) || name.startsWith("x-amz-meta-"),
  );
  const file = (resource: string, content: string): Replacement => {
    const path = store.getResourcePath(bucket, key, resource);
    return { path, part: `${path}.${partTag()}.part`, content };
  };
  const files = md5 ? [file("object.md5", md5)] : [];
  if (isDefault(kept)) return { files, stale: store.getResourcePath(bucket, key, "metadata.json") };
  files.push(file("metadata.json", JSON.stringify(Object.fromEntries(kept), null, 2)));
  return { files };
}

/**
 * Removes a file that may well not be there (an object's metadata file mostly is not): a look
 * first, as a failed unlink costs a thrown error's stack (13 µs) where the look costs 3.
 */
function removeIfThere(path: string): void {
  if (!existsSync(path)) return;
  try {
    unlinkSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
}

/**
 * Writes the parts, then renames them over their paths in order (the last one seen last), or
 * removes what it wrote; then removes the stale file, if any. Synchronous: a small PUT's writes and renames take about a quarter of
 * the CPU and of the time they take through the thread pool and promises (docs/operating.md,
 * "Object storage").
 * A key's directory is made when missing: S3 has no directories, and deletes here leave them,
 * so it is made once and found by every later write.
 */
function replaceFiles({ files, stale }: FileChanges, dir: string): void {
  try {
    for (const f of files) {
      try {
        writeFileSync(f.part, f.content);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
        mkdirSync(dir, { recursive: true });
        writeFileSync(f.part, f.content);
      }
    }
    for (const f of files) renameSync(f.part, f.path);
  } catch (err) {
    for (const f of files) rmSync(f.part, { force: true });
    throw err;
  }
  if (stale !== undefined) removeIfThere(stale);
}

/**
 * A part file's tag: short, as the part's name is its object's plus this, and a stream key's
 * segment (200 characters) with s3rver's longest suffix must still fit a file name (255 bytes).
 */
function partTag(): string {
  return randomBytes(4).toString("hex");
}

/** s3rver's putMetadata (the same files and content), each file replaced whole by a rename. */
async function putMetadata(
  store: FilesystemStore,
  bucket: string,
  key: string,
  metadata: Record<string, unknown>,
  md5: string,
): Promise<void> {
  const changes = metadataFiles(store, bucket, key, metadata, md5);
  replaceFiles(changes, dirname(store.getResourcePath(bucket, key, "object")));
}

/**
 * s3rver's putObject (same object and result), visible only once its whole body is stored: the
 * object's file is renamed over its key last, after its metadata files.
 */
async function putObject(
  store: FilesystemStore,
  object: PutObject,
): Promise<{ size: number; md5: string }> {
  const path = store.getResourcePath(object.bucket, object.key, "object");
  // Not named like an object ("…._S3rver_object"), so listings pass over it.
  const part = `${path}.part-${partTag()}`;
  const { content } = object;
  if (!Buffer.isBuffer(content)) return putStreamed(store, object, content, path, part);
  // Bytes in hand (the in-process store).
  const md5 = createHash("md5").update(content).digest("hex");
  const { files, stale } = metadataFiles(store, object.bucket, object.key, object.metadata, md5);
  replaceFiles({ files: [...files, { path, part, content }], stale }, dirname(path));
  // The I/O that waited meanwhile runs before the caller goes on: a loop of PUTs (a settle
  // round) must not hold off the reads and calls beside it.
  await setImmediate();
  return { size: content.length, md5 };
}

/** A PUT over HTTP: the body streamed to its part file, then the metadata, then the rename. */
async function putStreamed(
  store: FilesystemStore,
  object: PutObject,
  content: Readable,
  path: string,
  part: string,
): Promise<{ size: number; md5: string }> {
  await mkdir(dirname(path), { recursive: true });
  const md5 = createHash("md5");
  let size = 0;
  try {
    // A request cut before its Content-Length arrived ends the pipeline with an error.
    await pipeline(
      content,
      async function* (chunks: AsyncIterable<Buffer>) {
        for await (const chunk of chunks) {
          md5.update(chunk);
          size += chunk.length;
          yield chunk;
        }
      },
      createWriteStream(part),
    );
    const digest = md5.digest("hex");
    await store.putMetadata(object.bucket, object.key, object.metadata, digest);
    await rename(part, path);
    return { size, md5: digest };
  } catch (err) {
    await unlink(part).catch(() => {});
    throw err;
  }
}
