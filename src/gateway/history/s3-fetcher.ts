// GETs of raw `{storage_bucket, object_key}` chunk entries through the gateway's own S3
// settings: one object store per bucket the plans name.

import type { ObjectStore } from "../../platform/objstore/index.ts";
import { createS3Store, ObjectStoreError } from "../../platform/objstore/index.ts";
import { ChunkFault } from "./faults.ts";

export interface S3Settings {
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
}

export interface S3Fetcher {
  /** The whole object, which must be exactly `size` bytes; `signal` abandons the request. */
  get(bucket: string, key: string, size: number, signal?: AbortSignal): Promise<Buffer>;
  close(): void;
}

/** A fetcher over `storeFor(bucket)`; the S3 one is `createS3Fetcher`. */
export function s3Fetcher(storeFor: (bucket: string) => ObjectStore, close: () => void): S3Fetcher {
  return {
    async get(bucket, key, size, signal) {
      const what = `GET s3://${bucket}/${key}`;
      let bytes: Buffer | undefined;
      try {
        // Never more than the plan says: a larger object is cut short and fails verification.
        bytes = await storeFor(bucket).get(key, { start: 0, end: size }, signal);
      } catch (err) {
        if (!(err instanceof ObjectStoreError)) throw err;
        const reason =
          err.kind === "timeout" ? "timeout" : err.kind === "denied" ? "forbidden" : "unavailable";
        throw new ChunkFault(reason, `${what}: ${err.message}`);
      }
      if (bytes === undefined) throw new ChunkFault("missing", `${what}: no such object`);
      if (bytes.length !== size) {
        throw new ChunkFault("corrupt", `${what}: ${bytes.length} bytes, the plan says ${size}`);
      }
      return bytes;
    },
    close,
  };
}

/** `connections` per bucket's store; a deployment keeps its data in one bucket. */
export function createS3Fetcher(
  settings: S3Settings,
  limits: { timeoutMs: number; connections: number },
): S3Fetcher {
  const stores = new Map<string, ObjectStore>();
  const storeFor = (bucket: string): ObjectStore => {
    let store = stores.get(bucket);
    if (!store) {
      store = createS3Store({
        ...settings,
        bucket,
        requestTimeoutMs: limits.timeoutMs,
        maxSockets: limits.connections,
        // The star is the fallback: a failed GET goes there at once rather than retrying here.
        maxAttempts: 1,
      });
      stores.set(bucket, store);
    }
    return store;
  };
  return s3Fetcher(storeFor, () => {
    for (const store of stores.values()) store.close();
    stores.clear();
  });
}
