// The embedded object store. s3rver and our patches to it load when one opens, not with this
// module: every gateway and star process imports the object store's face, and s3rver's module
// graph (about 150 files) would add about 0.3 s to each start.
import { mkdir } from "node:fs/promises";
import type { KeyTurns } from "../concurrency/index.ts";
import { lockDir } from "./dir-lock.ts";
import type { ObjectStore } from "./object-store.ts";
import type { FilesystemStore } from "./s3rver-internals.ts";

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

/**
 * An embedded store's directory, open in this process: its objects read and written in place,
 * and S3's HTTP API over them served from the first `serve()` on, for those who reach the store
 * from elsewhere (a gateway's presigned reads, the other stars of a fleet). s3rver's server (its
 * Koa application, router and logger: about 0.2 s of CPU) loads only then, so a star on a data
 * directory starts without it until a presigned read asks for it.
 */
export interface EmbeddedS3rver {
  /**
   * A bucket's objects for this process, read and written in place (s3rver-local-store.ts); what
   * it writes is what the server serves, and the other way round.
   */
  localStore(bucket: string): ObjectStore;
  /** Serves S3's HTTP API over the directory (started on the first call); its URL. */
  serve(): Promise<string>;
  close(): Promise<void>;
}

/** An embedded store already serving: `npm run objstore`, and tests that reach it over HTTP. */
export interface RunningS3rver {
  url: string;
  port: number;
  localStore(bucket: string): ObjectStore;
  close(): Promise<void>;
}

/** S3's rule for bucket names, checked up front so a bad name fails at start, not at first use. */
const BUCKET_NAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;

export async function openS3rver(opts: S3rverOptions): Promise<EmbeddedS3rver> {
  const host = opts.host ?? "127.0.0.1";
  const buckets = opts.buckets ?? [];
  for (const name of buckets) {
    if (name.length < 3 || name.length > 63 || !BUCKET_NAME.test(name)) {
      throw new Error(
        `invalid bucket name "${name}": 3 to 63 lowercase letters, digits, dots and hyphens`,
      );
    }
  }
  const [internals, { fixS3rverStore }, { createS3rverLocalStore }, { KeyTurns }] =
    await Promise.all([
      import("./s3rver-internals.ts"),
      import("./s3rver-store-fixes.ts"),
      import("./s3rver-local-store.ts"),
      import("../concurrency/index.ts"),
    ]);
  internals.checkS3rverVersion(internals.installedS3rverVersion);
  await mkdir(opts.dataDir, { recursive: true });
  const unlock = await lockDir(opts.dataDir);
  const store = internals.openFilesystemStore(opts.dataDir);
  fixS3rverStore(store);
  try {
    for (const name of buckets) await store.putBucket(name);
  } catch (err) {
    await unlock();
    throw err;
  }
  // Conditional PUTs take turns on a key, whichever way they come.
  const turns = new KeyTurns();
  let serving: Promise<{ url: string; close(): Promise<void> }> | undefined;
  const serve = () => {
    serving ??= startServer(store, turns, { ...opts, host }).catch((err: unknown) => {
      serving = undefined;
      throw err;
    });
    return serving;
  };
  const stores: ObjectStore[] = [];
  let closing: Promise<void> | undefined;
  return {
    localStore(bucket) {
      const local = createS3rverLocalStore({
        store,
        turns,
        bucket,
        endpoint: async () => (await serve()).url,
      });
      stores.push(local);
      return local;
    },
    serve: async () => (await serve()).url,
    // Once, however often asked (a second signal may ask again while the first close runs).
    close() {
      closing ??= (async () => {
        for (const local of stores) local.close();
        await serving?.then((server) => server.close());
        await unlock();
      })();
      return closing;
    },
  };
}

/** `openS3rver`, serving from the start. */
export async function startS3rver(opts: S3rverOptions): Promise<RunningS3rver> {
  const embedded = await openS3rver(opts);
  const url = await embedded.serve();
  return {
    url,
    port: Number(new URL(url).port),
    localStore: (bucket) => embedded.localStore(bucket),
    close: () => embedded.close(),
  };
}

/** s3rver's server over the patched store, the one this process reads and writes in place. */
async function startServer(
  store: FilesystemStore,
  turns: KeyTurns,
  opts: S3rverOptions & { host: string },
): Promise<{ url: string; close(): Promise<void> }> {
  const [{ default: S3rver }, { fixS3rverServer }, { readIntoPooledMemory }] = await Promise.all([
    import("s3rver"),
    import("./s3rver-fixes.ts"),
    import("./s3rver-pooled-reads.ts"),
  ]);
  const { host } = opts;
  const server = new S3rver({
    address: host,
    port: opts.port ?? 0,
    directory: opts.dataDir,
    silent: true,
  });
  const shared = server as unknown as {
    store: FilesystemStore;
    context: { store: FilesystemStore };
  };
  shared.store = store;
  shared.context.store = store;
  fixS3rverServer(server, turns);
  readIntoPooledMemory(server);
  const address = await server.run();
  return {
    url: `http://${urlHost(host)}:${address.port}`,
    // Node's server.close() also drops idle keep-alive connections, so clients cannot hold it open.
    close: () => server.close(),
  };
}

function urlHost(host: string): string {
  if (host === "0.0.0.0") return "127.0.0.1";
  if (host === "::") return "[::1]";
  return host.includes(":") ? `[${host}]` : host;
}
