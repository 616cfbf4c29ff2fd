// A star whose object store does not answer tells its callers UNAVAILABLE (retry, here or
// elsewhere), never INTERNAL.
import assert from "node:assert/strict";
import { test } from "node:test";
import { type ServiceError, status } from "@grpc/grpc-js";
import { createS3Store } from "../../src/platform/objstore/index.ts";
import { startStar } from "../../src/star/star.ts";
import { call, dataPlaneClient } from "../harness/grpc.ts";
import { freePort } from "../harness/ports.ts";

test("object storage refusing connections reaches the client as UNAVAILABLE", async (t) => {
  // Nothing listens on a port that was free a moment ago.
  const store = createS3Store({
    endpoint: `http://127.0.0.1:${await freePort()}`,
    bucket: "nova",
    maxAttempts: 1,
  });
  const star = await startStar({ id: "s", listen: "127.0.0.1:0", store });
  const client = dataPlaneClient(star.address);
  t.after(async () => {
    client.close();
    await star.close();
    store.close();
  });
  for (const [method, request] of [
    ["GetBucket", { name: "any" }],
    ["CreateBucket", { name: "any" }],
    ["Read", { bucket: "any", key: "k", seq_num: "0" }],
  ] as const) {
    const err = (await call(client, method, request as never).then(
      () => assert.fail(`${method} succeeded`),
      (e: unknown) => e,
    )) as ServiceError;
    assert.equal(err.code, status.UNAVAILABLE, `${method}: ${err.details}`);
    assert.match(err.details, /object storage is unavailable/);
  }
});
