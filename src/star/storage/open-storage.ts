// Where a star keeps its data: an S3-compatible endpoint, or an embedded s3rver on loopback
// over a local directory (the default for `npm start` and single-star deployments).

import type { ObjectStore } from "../../platform/objstore/index.ts";
import {
  createS3Store,
  ensureS3Bucket,
  openS3rver,
  type S3StoreOptions,
} from "../../platform/objstore/index.ts";

export type StorageConfig =
  | { kind: "embedded"; dataDir: string; bucket: string }
  | { kind: "s3"; s3: S3StoreOptions };

export interface OpenStorage {
  store: ObjectStore;
  /** Where the data is, for logs: the S3 endpoint, or the embedded store's directory. */
  location: string;
  /**
   * The S3 endpoint others reach the data at: the embedded store serves S3's HTTP API from the
   * first call on (presigned reads make it), so a star that hands out none never loads it.
   */
  endpoint(): Promise<string>;
  close(): Promise<void>;
}

export async function openStorage(config: StorageConfig): Promise<OpenStorage> {
  if (config.kind === "s3") {
    await ensureS3Bucket(config.s3);
    const store = createS3Store(config.s3);
    const { endpoint } = config.s3;
    return {
      store,
      location: endpoint,
      endpoint: async () => endpoint,
      close: async () => store.close(),
    };
  }
  const s3rver = await openS3rver({ port: 0, dataDir: config.dataDir, buckets: [config.bucket] });
  // The star runs the embedded store: it reads and writes its files in place, others over HTTP.
  return {
    store: s3rver.localStore(config.bucket),
    location: `embedded in ${config.dataDir}`,
    endpoint: () => s3rver.serve(),
    close: () => s3rver.close(),
  };
}
