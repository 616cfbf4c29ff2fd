// s3rver 3.7.1 diverges from S3 in ways the star would trip over; this patches them in place:
// - it lists keys in file-system walk order ("a/b" before "a-c", "a" after "a.0"), so paging
//   from a marker skips keys;
// - its multi-object delete parses keys as XML values: "0001" becomes the number 1 (a 500),
//   " x " is trimmed to "x" (silently not deleted), and multi-byte characters split across
//   chunks are mangled; its parallel deletes race on removing emptied directories;
// - a range read of an empty object announces one byte and sends none (the client sees a reset);
// - a PUT writes its body straight into the object's file, so the key is listed, empty or partial,
//   from the first byte, and stays so when the upload is cut (a star killed mid-PUT) or the store
//   dies: S3 shows an object only once its whole body arrived. Here the body goes to a file
//   beside it that listings pass over, renamed over the key once complete; a cut upload leaves
//   nothing; its metadata and ETag files were rewritten in place, so a GET racing a PUT could
//   read them empty (a 500) or half written: they are replaced by a rename too;
// - it ignores If-None-Match and If-Match on PUT, which S3 honours atomically (a 412 when the
//   condition fails): conditional PUTs are checked and written one at a time per key here;
// - a delete removes the directories it empties, so a PUT under the same prefix that made its
//   directory a moment before writes into nothing: its file stream fails with no listener and
//   takes the process down (S3 has no directories: deletes here leave them, empty).
// Not patched: a truncated ListObjectsV2 page fails with a 500, as its continuation token needs
// DES, which Node 17+ (OpenSSL 3) lacks: the S3 store lists with V1 markers instead. Keys with
// empty or "."/".." path segments alias other keys ("a//b" is "a/b").
import { createHash, randomUUID } from "node:crypto";
import { createWriteStream, type Dirent, readdirSync } from "node:fs";
import { mkdir, rename, unlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type S3rver from "s3rver";
import type { KeyTurns } from "../concurrency/index.ts";
import { compareKeys } from "./object-store.ts";
import {
  type FilesystemStore,
  type PutObject,
  requireFromS3rver,
  S3Object,
  storeOf,
} from "./s3rver-internals.ts";

interface KoaContext {
  req: Readable;
  params: { bucket: string };
  store: FilesystemStore;
  body: unknown;
}

const S3Error = requireFromS3rver("./models/error.js") as new (
  code: string,
  message: string,
) => Error;
const objectController = requireFromS3rver("./controllers/object.js") as {
  deleteMultipleObjects(ctx: KoaContext): Promise<void>;
};
const xmlParser = requireFromS3rver("fast-xml-parser") as {
  validate(xml: string): true | object;
  parse(xml: string, options: object): { Delete?: { Object?: unknown } };
};
const he = requireFromS3rver("he") as { decode(s: string): string };

const OBJECT_SUFFIX = "._S3rver_object";

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
  const keys: string[] = [];
  const commonPrefixes = new Set<string>();
  let isTruncated = false;
  for (const key of walkKeys(store.getBucketPath(bucket), "", prefix, startAfter)) {
    if (compareKeys(key, startAfter) <= 0 || !key.startsWith(prefix)) continue;
    const cut = delimiter ? key.indexOf(delimiter, prefix.length) : -1;
    if (cut !== -1) {
      commonPrefixes.add(key.slice(0, cut + delimiter.length));
      continue;
    }
    if (keys.length === maxKeys) {
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
  return {
    objects: objects.filter((o) => o !== undefined),
    commonPrefixes: [...commonPrefixes].sort(compareKeys),
    isTruncated,
  };
}

/** Multi-object delete with keys taken verbatim, deleted one at a time. */
async function deleteMultipleObjects(ctx: KoaContext): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
  const xml = Buffer.concat(chunks).toString("utf8");
  const body =
    xmlParser.validate(xml) === true
      ? xmlParser.parse(xml, {
          parseNodeValue: false,
          trimValues: false,
          tagValueProcessor: (v: string) => he.decode(v),
        })
      : {};
  const objects = body.Delete?.Object;
  if (objects === undefined) {
    throw new S3Error(
      "MalformedXML",
      "The XML you provided was not well-formed or did not validate against our published schema.",
    );
  }
  const keys = ([] as { Key: unknown }[]).concat(objects as never).map((o) => String(o.Key));
  for (const key of keys) {
    if (await ctx.store.existsObject(ctx.params.bucket, key)) {
      await ctx.store.deleteObject(ctx.params.bucket, key);
    }
  }
  ctx.body = {
    DeleteResult: {
      "@": { xmlns: "http://s3.amazonaws.com/doc/2006-03-01/" },
      Deleted: keys.map((Key) => ({ Key })),
    },
  };
}

/** Applies the fixes to a server before it runs. */
type KoaMiddleware = (ctx: ConditionalContext, next: () => Promise<void>) => Promise<void>;

interface ConditionalContext {
  method: string;
  path: string;
  get(header: string): string;
  status: number;
  body: unknown;
}

/**
 * S3's conditional PUT: with If-None-Match: * only where no object is, with If-Match only over
 * the object with that ETag, else 412. The check and the write take one turn on the key, shared
 * with the in-process store (s3rver-local-store.ts), so they are one step for every other
 * conditional PUT.
 */
function conditionalPuts(store: FilesystemStore, turns: KeyTurns): KoaMiddleware {
  return async (ctx, next) => {
    const ifNoneMatch = ctx.get("if-none-match");
    const ifMatch = ctx.get("if-match");
    if (ctx.method !== "PUT" || (ifNoneMatch === "" && ifMatch === "")) return next();
    const slash = ctx.path.indexOf("/", 1);
    if (slash < 0) return next();
    const bucket = decodeURIComponent(ctx.path.slice(1, slash));
    const key = decodeURIComponent(ctx.path.slice(slash + 1));
    await turns.take(turnKey(bucket, key), async () => {
      const etag = await etagOf(store, bucket, key);
      const holds = ifNoneMatch === "*" ? etag === undefined : etag === ifMatch;
      if (!holds) {
        ctx.status = 412;
        ctx.body = {
          Error: {
            Code: "PreconditionFailed",
            Message: "At least one of the pre-conditions you specified did not hold",
          },
        };
        return;
      }
      await next();
    });
  };
}

/** The key a conditional PUT takes its turn on. */
export const turnKey = (bucket: string, key: string): string => `${bucket}/${key}`;

/** The stored object's ETag, or undefined when there is none. */
export function etagOf(store: FilesystemStore, bucket: string, key: string) {
  return store.getMetadata(bucket, key).then(
    (m) => m.etag as string,
    () => undefined,
  );
}

export function fixS3rver(server: S3rver, turns: KeyTurns): void {
  // s3rver's router looks the controller up on every request, so replacing it takes effect.
  objectController.deleteMultipleObjects = deleteMultipleObjects;
  const store = storeOf(server);
  store.listObjects = (bucket, options) => listObjects(store, bucket, options);
  store.deleteObject = async (bucket, key) => {
    await Promise.all(
      ["object", "object.md5", "metadata.json"].map((resource) =>
        unlink(store.getResourcePath(bucket, key, resource)).catch((err: NodeJS.ErrnoException) => {
          if (err.code !== "ENOENT") throw err;
        }),
      ),
    );
  };
  store.putObject = (object) => putObject(store, object);
  store.putMetadata = (bucket, key, metadata, md5) =>
    putMetadata(store, bucket, key, metadata, md5);
  // Before the router (the last middleware), after the virtual-host rewrite to path style.
  const { middleware } = server as unknown as { middleware: KoaMiddleware[] };
  middleware.splice(middleware.length - 1, 0, conditionalPuts(store, turns));
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

/** s3rver's putMetadata (the same files and content), each file replaced whole by a rename. */
async function putMetadata(
  store: FilesystemStore,
  bucket: string,
  key: string,
  metadata: Record<string, unknown>,
  md5: string,
): Promise<void> {
  const kept = Object.entries(metadata).filter(
    ([name]) => ALLOWED_METADATA.includes(name) || name.startsWith("x-amz-meta-"),
  );
  if (md5) await replaceFile(store.getResourcePath(bucket, key, "object.md5"), md5);
  await replaceFile(
    store.getResourcePath(bucket, key, "metadata.json"),
    JSON.stringify(Object.fromEntries(kept), null, 2),
  );
}

async function replaceFile(path: string, content: string): Promise<void> {
  const part = `${path}.${randomUUID()}.part`;
  await writeFile(part, content);
  await rename(part, path);
}

/** s3rver's putObject (same object and result), visible only once its whole body is stored. */
async function putObject(
  store: FilesystemStore,
  object: PutObject,
): Promise<{ size: number; md5: string }> {
  const path = store.getResourcePath(object.bucket, object.key, "object");
  await mkdir(dirname(path), { recursive: true });
  // Not named like an object ("…._S3rver_object"), so listings pass over it.
  const part = `${path}.part-${randomUUID()}`;
  const md5 = createHash("md5");
  let size = 0;
  const { content } = object;
  try {
    if (Buffer.isBuffer(content)) {
      // Bytes in hand (the in-process store): one write, no stream.
      md5.update(content);
      size = content.length;
      await writeFile(part, content);
    } else {
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
    }
    const digest = md5.digest("hex");
    await store.putMetadata(object.bucket, object.key, object.metadata, digest);
    await rename(part, path);
    return { size, md5: digest };
  } catch (err) {
    await unlink(part).catch(() => {});
    throw err;
  }
}
