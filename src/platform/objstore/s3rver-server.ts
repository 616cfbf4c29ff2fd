// The embedded object store. s3rver and our patches to it load when one starts, not with this
// module: every gateway and star process imports the object store's face, and s3rver's module
// graph (about 150 files) would add about 0.2 s to each start.
import { mkdir } from "node:fs/promises";
import type { ObjectStore } from "./object-store.ts";

export interface S3rverOptions {
  /** default 127.0.0.1 */
  host?: string;
  /** 0 (the default) picks a free port */
  port?: number;
  /** where the buckets and objects live; created if missing */
  dataDir: string;
  /** created at start unless they exist */
  buckets?: string[];
}

export interface RunningS3rver {
  url: string;
  port: number;
  /**
   * A bucket's objects for this process, read and written in place (s3rver-local-store.ts); what
   * it writes is what the server serves, and the other way round.
   */
  localStore(bucket: string): ObjectStore;
  close(): Promise<void>;
}

/** S3's rule for bucket names, checked up front so a bad name fails at start, not at first use. */
const BUCKET_NAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;

export async function startS3rver(opts: S3rverOptions): Promise<RunningS3rver> {
  const host = opts.host ?? "127.0.0.1";
  const buckets = opts.buckets ?? [];
  for (const name of buckets) {
    if (name.length < 3 || name.length > 63 || !BUCKET_NAME.test(name)) {
      throw new Error(
        `invalid bucket name "${name}": 3 to 63 lowercase letters, digits, dots and hyphens`,
      );
    }
  }
  const [
    { default: S3rver },
    { fixS3rver },
    internals,
    { readIntoPooledMemory },
    { createS3rverLocalStore },
    { KeyTurns },
  ] = await Promise.all([
    import("s3rver"),
    import("./s3rver-fixes.ts"),
    import("./s3rver-internals.ts"),
    import("./s3rver-pooled-reads.ts"),
    import("./s3rver-local-store.ts"),
    import("../concurrency/index.ts"),
  ]);
  internals.checkS3rverVersion(internals.installedS3rverVersion);
  await mkdir(opts.dataDir, { recursive: true });
  const server = new S3rver({
    address: host,
    port: opts.port ?? 0,
    directory: opts.dataDir,
    silent: true,
    configureBuckets: buckets.map((name) => ({ name, configs: [] })),
  });
  const turns = new KeyTurns();
  fixS3rver(server, turns);
  readIntoPooledMemory(server);
  const { port } = await server.run();
  const url = `http://${urlHost(host)}:${port}`;
  const store = internals.storeOf(server);
  return {
    url,
    port,
    localStore: (bucket) => createS3rverLocalStore({ store, turns, bucket, endpoint: url }),
    // Node's server.close() also drops idle keep-alive connections, so clients cannot hold it open.
    close: () => server.close(),
  };
}

function urlHost(host: string): string {
  if (host === "0.0.0.0") return "127.0.0.1";
  if (host === "::") return "[::1]";
  return host.includes(":") ? `[${host}]` : host;
}
