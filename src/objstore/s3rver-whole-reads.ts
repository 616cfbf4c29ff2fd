// s3rver streams every object GET from disk in 64 KiB pieces through Koa: about 5.5 ms of CPU
// for a 1 MiB chunk on this machine, where a plain Node server sending the file in one write
// spends about 1 (scratch measurements; the store is what `npm start` embeds, and on a 2-core
// machine its CPU is the gateway's and the star's). This reads a whole object of up to 8 MiB in
// one call, when the body is first wanted (a HEAD never reads it), and sends it in one write.
// Range reads and larger objects keep s3rver's stream.
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { Readable } from "node:stream";
import type S3rver from "s3rver";

const WHOLE_READ_MAX = 8 * 1024 * 1024;

interface Store {
  getResourcePath(bucket: string, key: string, resource: string): string;
  getMetadata(bucket: string, key: string): Promise<Record<string, unknown>>;
  getObject(
    bucket: string,
    key: string,
    options?: { start?: number; end?: number },
  ): Promise<unknown>;
}

const requireFromS3rver = createRequire(createRequire(import.meta.url).resolve("s3rver"));
const S3Object = requireFromS3rver("./models/object.js") as new (
  bucket: string,
  key: string,
  content: Readable,
  metadata: Record<string, unknown>,
) => unknown;

/** An object's bytes, read whole on the first read; a different size than announced fails. */
class WholeObject extends Readable {
  #started = false;

  constructor(
    readonly path: string,
    readonly size: number,
  ) {
    super();
  }

  override _read(): void {
    if (this.#started) return;
    this.#started = true;
    readFile(this.path).then(
      (bytes) => {
        if (bytes.length !== this.size) {
          this.destroy(new Error(`${this.path} changed while it was read`));
          return;
        }
        this.push(bytes);
        this.push(null);
      },
      (err: unknown) => this.destroy(err as Error),
    );
  }
}

/** Applies whole reads to a server before it runs (after fixS3rver). */
export function readWholeObjects(server: S3rver): void {
  const store = (server as unknown as { store: Store }).store;
  const getObject = store.getObject.bind(store);
  store.getObject = async (bucket, key, options) => {
    if (options?.start !== undefined || options?.end !== undefined) {
      return getObject(bucket, key, options);
    }
    let metadata: Record<string, unknown>;
    try {
      metadata = await store.getMetadata(bucket, key);
    } catch (err) {
      if ((err as { code?: string }).code === "ENOENT") return null;
      throw err;
    }
    const size = Number(metadata["content-length"]);
    if (!(size <= WHOLE_READ_MAX)) return getObject(bucket, key, options);
    const path = store.getResourcePath(bucket, key, "object");
    return new S3Object(bucket, key, new WholeObject(path, size), metadata);
  };
}
