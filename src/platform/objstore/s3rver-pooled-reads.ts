// s3rver streams an object GET from disk in fresh 64 KiB buffers, and about half of its CPU per
// GET goes to that memory: page faults and garbage collection (measured in docs/catchup.md,
// "Measuring"). The embedded store shares the machine with the gateway and the star, so its CPU
// is theirs. This reads what a GET asks for (the whole object
// or a range, up to 8 MiB) in one read into pooled memory and sends it as one body; the memory
// goes back to the pool once the response has handed every byte to the socket ('finish').
// Everything else keeps s3rver's own path: empty objects, ranges it cannot satisfy, larger reads.

import { type FileHandle, open } from "node:fs/promises";
import type { ServerResponse } from "node:http";
import { Readable } from "node:stream";
import type S3rver from "s3rver";
import { BufferPool } from "../memory/index.ts";
import { md5Etag } from "./object-store.ts";
import { S3Object, storeOf } from "./s3rver-internals.ts";

/** Larger reads are streamed by s3rver, so one GET never holds more than this in memory. */
const MAX_POOLED_READ = 8 * 1024 * 1024;
/** Whole objects up to this size answer with the ETag of the bytes read. */
const HASHED_ETAG_MAX = 64 * 1024;

interface KoaContext {
  body: unknown;
  res: ServerResponse;
}

type Middleware = (ctx: KoaContext, next: () => Promise<void>) => Promise<void>;

/** A body in pooled memory, sent in one piece. */
class PooledBody extends Readable {
  #bytes: Buffer | undefined;
  #pushed = false;
  readonly pool: BufferPool;

  constructor(bytes: Buffer, pool: BufferPool) {
    super();
    this.#bytes = bytes;
    this.pool = pool;
  }

  override _read(): void {
    if (this.#pushed) return;
    this.#pushed = true;
    this.push(this.#bytes);
    this.push(null);
  }

  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    // Destroyed before sending (a HEAD, a client gone early): nothing else holds the bytes.
    if (!this.#pushed) this.#giveBack();
    callback(err);
  }

  /**
   * Gives the memory back once `res` has handed every byte to the socket. A response that ends
   * otherwise (the client went away) may still have writes queued on its bytes: those are left
   * to the garbage collector.
   */
  giveBackAfter(res: ServerResponse): void {
    res.once("finish", () => this.#giveBack());
  }

  #giveBack(): void {
    if (this.#bytes) this.pool.give(this.#bytes);
    this.#bytes = undefined;
  }
}

/** `length` bytes of an open file from `start`, into pooled memory. */
async function readRange(
  file: FileHandle,
  path: string,
  start: number,
  length: number,
  pool: BufferPool,
): Promise<Buffer> {
  const bytes = pool.take(length);
  try {
    let got = 0;
    while (got < length) {
      const { bytesRead } = await file.read(bytes, got, length - got, start + got);
      if (bytesRead === 0) {
        throw new Error(`${path} ended after ${start + got} bytes: it changed while it was read`);
      }
      got += bytesRead;
    }
    return bytes;
  } catch (err) {
    pool.give(bytes);
    throw err;
  }
}

/** Applies pooled reads to a server before it runs (after fixS3rverStore, whose reads it keeps). */
export function readIntoPooledMemory(
  server: S3rver,
  pool = new BufferPool(32 * 1024 * 1024),
): void {
  const store = storeOf(server);
  const getObject = store.getObject.bind(store);
  store.getObject = async (bucket, key, options) => {
    // One open file throughout: a PUT that replaces the object meanwhile (a rename) cannot mix
    // its size, its bytes or its ETag into this read.
    const path = store.getResourcePath(bucket, key, "object");
    let file: FileHandle;
    try {
      file = await open(path, "r");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw err;
    }
    try {
      const size = (await file.stat()).size;
      // s3rver's own range rule, kept as it is (a missing or zero end means the last byte).
      const start = options?.start || 0;
      const end = Math.min(options?.end || Number.POSITIVE_INFINITY, size - 1);
      const length = end + 1 - start;
      if (!(size > 0 && start >= 0 && length > 0 && length <= MAX_POOLED_READ)) {
        return await getObject(bucket, key, options);
      }
      let metadata: Record<string, unknown>;
      try {
        metadata = await store.getMetadata(bucket, key);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
        throw err;
      }
      const bytes = await readRange(file, path, start, length, pool);
      // The ETag of the bytes read, not the one stored beside them (written after the rename),
      // for the small objects written with If-Match (lease records): hashing every chunk GET
      // would cost about 1.4 ms of CPU per MiB on the hot path of catch-up reads.
      if (length === size && size <= HASHED_ETAG_MAX) {
        metadata = { ...metadata, etag: md5Etag(bytes.subarray(0, size)) };
      }
      metadata["content-length"] = size;
      const object = new S3Object(bucket, key, new PooledBody(bytes, pool), metadata);
      if (options && (options.start !== undefined || options.end)) object.range = { start, end };
      return object;
    } finally {
      await file.close();
    }
  };
  // Outermost, so that it sees the body the router chose before Koa starts sending it.
  (server as unknown as { middleware: Middleware[] }).middleware.unshift(async (ctx, next) => {
    await next();
    if (ctx.body instanceof PooledBody) ctx.body.giveBackAfter(ctx.res);
  });
}
