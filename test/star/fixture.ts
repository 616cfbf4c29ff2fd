// One real star on loopback over a real s3rver, both in this process, stopped after the tests.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DataPlaneServiceClient } from "../../src/gen/nova/v1/DataPlaneService.ts";
import type { ObjectStore } from "../../src/platform/objstore/index.ts";
import { createS3Store, startS3rver } from "../../src/platform/objstore/index.ts";
import type { StarLimits } from "../../src/star/limits.ts";
import { type RunningStar, startStar } from "../../src/star/star.ts";
import { dataPlaneClient } from "../harness/grpc.ts";

export interface StarFixture {
  star: RunningStar;
  client: DataPlaneServiceClient;
  store: ObjectStore;
  s3url: string;
  close(): Promise<void>;
}

/** `wrap` stands between the star and its store: a test's delays or failures. */
export async function startStarFixture(
  limits?: Partial<StarLimits>,
  wrap: (store: ObjectStore) => ObjectStore = (store) => store,
): Promise<StarFixture> {
  const dir = await mkdtemp(join(tmpdir(), "nova-star-test-"));
  const s3 = await startS3rver({ port: 0, dataDir: dir, buckets: ["nova"] });
  const store = createS3Store({ endpoint: s3.url, bucket: "nova" });
  const star = await startStar({
    id: "star-1",
    listen: "127.0.0.1:0",
    store: wrap(store),
    limits,
    retentionIntervalMs: 200,
  });
  const client = dataPlaneClient(star.address);
  return {
    star,
    client,
    store,
    s3url: s3.url,
    async close() {
      client.close();
      await star.close();
      store.close();
      await s3.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

let counter = 0;
/** A bucket name no other test in this process uses. */
export const uniqueBucket = (prefix = "b") => `${prefix}-${process.pid}-${++counter}`;
