// The embedded object store as the process running it sees it: the files s3rver serves, read and
// written in place rather than through S3's HTTP API to itself. Over the loopback a PUT cost
// about 4 ms of CPU between the AWS SDK and s3rver, a GET about 2; in place, under 1 and 0.2
// (docs/benchmarks.md). Everyone else (a gateway's presigned reads, the other stars of a fleet)
// reaches the same objects over HTTP: the layout, the ETags and the conditional PUTs' turns on a
// key (KeyTurns, shared with s3rver-fixes.ts) are s3rver's, so both ways see one store.
import { statSync } from "node:fs";
import { open as openFile, readFile } from "node:fs/promises";
import type { KeyTurns } from "../concurrency/index.ts";
import { ObjectStoreError } from "./errors.ts";
import {
  type ByteRange,
  checkExpiry,
  checkKey,
  checkRange,
  closedError,
  type ListPage,
  listPage,
  listPages,
  md5Etag,
  type ObjectStore,
  type PutCondition,
  pageLimit,
} from "./object-store.ts";
import { createGetPresigner, type PresignGet } from "./presign-get.ts";
import type { FilesystemStore } from "./s3rver-internals.ts";
import { DEFAULT_METADATA, etagOf, turnKey } from "./s3rver-store-fixes.ts";

export interface S3rverLocalStoreOptions {
  store: FilesystemStore;
  turns: KeyTurns;
  bucket: string;
  /** s3rver's URL, serving from the first call on: presigned GETs point there. */
  endpoint: () => Promise<string>;
}

/** s3rver's fixed credentials, the ones its HTTP clients sign with. */
const CREDENTIALS = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };

export function createS3rverLocalStore(opts: S3rverLocalStoreOptions): ObjectStore {
  const { store, turns, bucket } = opts;
  let presigner: Promise<PresignGet> | undefined;
  const presign = () => {
    presigner ??= opts.endpoint().then(
      (endpoint) => createGetPresigner({ endpoint, region: "us-east-1", ...CREDENTIALS }),
      (err: unknown) => {
        presigner = undefined;
        throw err;
      },
    );
    return presigner;
  };
  let closed = false;

  /** Checks a key before it reaches the file system, where s3rver keeps it as a path. */
  const admit = (key: string): void => {
    if (closed) throw closedError(key);
    checkKey(key);
    // S3 keeps such keys apart; as paths they would name another object, or leave the bucket.
    if (key.split("/").some((segment) => segment === "." || segment === "..")) {
      throw new ObjectStoreError(
        "other",
        key,
        `invalid object key for the embedded store: "." and ".." segments would name another path`,
      );
    }
  };
  // A name the file system cannot hold is the key's fault, not a passing one: not retried.
  const fail = (err: unknown, op: string, key: string): ObjectStoreError =>
    new ObjectStoreError(
      (err as NodeJS.ErrnoException).code === "ENAMETOOLONG" ? "other" : "unavailable",
      key,
      `${op} ${bucket}/${key} in the embedded store (${store.getBucketPath(bucket)}): ${(err as Error).message}`,
    );
  const missing = (err: unknown): boolean => (err as NodeJS.ErrnoException).code === "ENOENT";
  const objectPath = (key: string): string => store.getResourcePath(bucket, key, "object");
  // An object is there once its file is (renamed in last, s3rver-store-fixes.ts): one stat, what
  // s3rver's getMetadata checks first, without its reads; a log PUT's condition, so synchronous.
  const exists = (key: string): boolean =>
    statSync(objectPath(key), { throwIfNoEntry: false }) !== undefined;
  // The caller's bytes as they are: an in-place PUT writes them before it returns.
  const write = (key: string, body: Uint8Array) =>
    store.putObject({
      bucket,
      key,
      content: Buffer.from(body.buffer, body.byteOffset, body.byteLength),
      metadata: DEFAULT_METADATA,
    });

  const readRange = async (key: string, range: ByteRange): Promise<Buffer | undefined> => {
    let handle: Awaited<ReturnType<typeof openFile>>;
    try {
      handle = await openFile(objectPath(key), "r");
    } catch (err) {
      if (missing(err)) return undefined;
      throw fail(err, "get", key);
    }
    try {
      const { size } = await handle.stat();
      const start = Math.min(range.start, size);
      const length = Math.min(range.end, size) - start;
      const out = Buffer.alloc(length);
      let filled = 0;
      while (filled < length) {
        const { bytesRead } = await handle.read(out, filled, length - filled, start + filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      return out.subarray(0, filled);
    } catch (err) {
      throw fail(err, "get", key);
    } finally {
      await handle.close();
    }
  };

  const list = async (
    prefix: string,
    options: { startAfter?: string; limit?: number } = {},
  ): Promise<ListPage> => {
    if (closed) throw closedError(prefix);
    const limit = pageLimit(options.limit);
    try {
      const out = await store.listObjects(bucket, {
        prefix,
        maxKeys: limit,
        ...(options.startAfter === undefined ? {} : { startAfter: options.startAfter }),
      });
      return listPage(
        out.objects.map(({ key, size }) => ({ key, size })),
        out.isTruncated,
      );
    } catch (err) {
      throw fail(err, "list", prefix);
    }
  };

  return {
    bucket,

    async put(key, body) {
      admit(key);
      try {
        // In the key's turn: a conditional PUT's check and write stay one step beside it.
        await turns.take(turnKey(bucket, key), () => write(key, body));
      } catch (err) {
        throw fail(err, "put", key);
      }
    },

    async get(key, range) {
      admit(key);
      if (range) {
        checkRange(key, range);
        return readRange(key, range);
      }
      try {
        return await readFile(objectPath(key));
      } catch (err) {
        if (missing(err)) return undefined;
        throw fail(err, "get", key);
      }
    },

    async getVersioned(key) {
      admit(key);
      try {
        // The ETag of the bytes read, as S3 gives it for a single-part PUT: a PUT renaming a new
        // version over this one between two reads cannot pair one's bytes with the other's ETag.
        const body = await readFile(objectPath(key));
        return { body, etag: md5Etag(body) };
      } catch (err) {
        if (missing(err)) return undefined;
        throw fail(err, "get", key);
      }
    },

    async putIf(key, body, condition: PutCondition) {
      admit(key);
      try {
        return await turns.take(turnKey(bucket, key), async () => {
          const holds =
            "ifNoneMatch" in condition
              ? !exists(key)
              : (await etagOf(store, bucket, key)) === condition.ifMatch;
          if (!holds) return undefined;
          const { md5 } = await write(key, body);
          return `"${md5}"`;
        });
      } catch (err) {
        throw fail(err, "put", key);
      }
    },

    list,

    listAll(prefix, options = {}) {
      return listPages(list, prefix, options.startAfter);
    },

    async delete(keys) {
      if (closed) throw closedError(keys[0]);
      for (const key of keys) admit(key);
      for (const key of keys) {
        try {
          // Missing resources are passed over (s3rver-store-fixes.ts), as S3 ignores missing keys.
          // In the key's turn, as a PUT: a conditional PUT's check never outdates under it.
          await turns.take(turnKey(bucket, key), () => store.deleteObject(bucket, key));
        } catch (err) {
          throw fail(err, "delete", key);
        }
      }
    },

    async presignGet(key, expiresSeconds) {
      admit(key);
      checkExpiry(key, expiresSeconds);
      return (await presign())(bucket, key, expiresSeconds);
    },

    close() {
      closed = true;
    },
  };
}
