// Where a star keeps its data: an S3-compatible endpoint, or an embedded s3rver on loopback
// over a local directory (the default for `npm start` and single-star deployments).

import type { ObjectStore } from "../../platform/objstore/index.ts";
import {
  createS3Store,
  ensureS3Bucket,
  type S3StoreOptions,
  startS3rver,
} from "../../platform/objstore/index.ts";

export type StorageConfig =
  | { kind: "embedded"; dataDir: string; bucket: string }
  | { kind: "s3"; s3: S3StoreOptions };

export interface OpenStorage {
  store: ObjectStore;
  /** The S3 endpoint in use (the embedded one's URL when embedded). */
  endpoint: string;
  close(): Promise<void>;
}

export async function openStorage(config: StorageConfig): Promise<OpenStorage> {
  if (config.kind === "s3") {
    await ensureS3Bucket(config.s3);
    const store = createS3Store(config.s3);
    return { store, endpoint: config.s3.endpoint, close: async () => store.close() };
  }
  const s3rver = await startS3rver({ port: 0, dataDir: config.dataDir, buckets: [config.bucket] });
  // The star runs the embedded store: it reads and writes its files in place, others over HTTP.
  const store = s3rver.localStore(config.bucket);
  return {
    store,
    endpoint: s3rver.url,
    async close() {
      store.close();
      await s3rver.close();
    },
  };
}
