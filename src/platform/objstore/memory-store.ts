import {
  type ByteRange,
  checkExpiry,
  checkKey,
  checkRange,
  closedError,
  compareKeys,
  type ListPage,
  listPage,
  listPages,
  md5Etag,
  type ObjectStore,
  type PutCondition,
  pageLimit,
} from "./object-store.ts";

/** An ObjectStore in memory, with the semantics of the S3 store, for unit tests. */
export function createMemoryStore(bucket = "mem"): ObjectStore {
  const objects = new Map<string, Buffer>();
  let closed = false;
  const open = (key: string | undefined): void => {
    if (closed) throw closedError(key);
  };

  const list = async (
    prefix: string,
    opts: { startAfter?: string; limit?: number } = {},
  ): Promise<ListPage> => {
    open(prefix);
    const limit = pageLimit(opts.limit);
    const { startAfter } = opts;
    const keys = [...objects.keys()]
      .filter(
        (k) => k.startsWith(prefix) && (startAfter === undefined || compareKeys(k, startAfter) > 0),
      )
      .sort(compareKeys);
    const page = keys.slice(0, limit).map((key) => ({ key, size: objects.get(key)?.length ?? 0 }));
    return listPage(page, keys.length > limit);
  };

  return {
    bucket,
    async put(key: string, body: Uint8Array): Promise<void> {
      open(key);
      checkKey(key);
      // A copy, so that the caller reusing its buffer does not change the stored object.
      objects.set(key, Buffer.from(body));
    },
    async get(key: string, range?: ByteRange): Promise<Buffer | undefined> {
      open(key);
      checkKey(key);
      if (range) checkRange(key, range);
      const body = objects.get(key);
      if (body === undefined) return undefined;
      return Buffer.from(range ? body.subarray(range.start, range.end) : body);
    },
    async getVersioned(key: string) {
      open(key);
      checkKey(key);
      const body = objects.get(key);
      return body === undefined ? undefined : { body: Buffer.from(body), etag: md5Etag(body) };
    },
    async putIf(key: string, body: Uint8Array, condition: PutCondition) {
      open(key);
      checkKey(key);
      const current = objects.get(key);
      const holds =
        "ifNoneMatch" in condition
          ? current === undefined
          : current !== undefined && md5Etag(current) === condition.ifMatch;
      if (!holds) return undefined;
      const copy = Buffer.from(body);
      objects.set(key, copy);
      return md5Etag(copy);
    },
    list,
    listAll(prefix: string, opts: { startAfter?: string } = {}) {
      return listPages(list, prefix, opts.startAfter);
    },
    async delete(keys: string[]): Promise<void> {
      open(keys[0]);
      for (const key of keys) checkKey(key);
      for (const key of keys) objects.delete(key);
    },
    async presignGet(key: string, expiresSeconds: number): Promise<string> {
      open(key);
      checkKey(key);
      checkExpiry(key, expiresSeconds);
      const path = key.split("/").map(encodeURIComponent).join("/");
      return `memory://${bucket}/${path}`;
    },
    close(): void {
      closed = true;
    },
  };
}
