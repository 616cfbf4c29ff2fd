import assert from "node:assert/strict";
import { test } from "node:test";
import { tempDir } from "../../../test/harness/tmp.ts";
import { openFilesystemStore } from "./s3rver-internals.ts";
import { fixS3rverStore } from "./s3rver-store-fixes.ts";

test("a page whose keys were deleted between the walk and their reads goes on past them", async (t) => {
  const store = openFilesystemStore(await tempDir(t));
  fixS3rverStore(store);
  await store.putBucket("b");
  for (const k of ["p/1", "p/2", "p/3", "p/4"]) {
    await store.putObject({ bucket: "b", key: k, metadata: {}, content: Buffer.from(k) });
  }
  // Another request's delete lands after the directory was walked, before each object is read.
  const read = store.getMetadata.bind(store);
  store.getMetadata = (bucket, key) =>
    key === "p/1" || key === "p/2"
      ? Promise.reject(Object.assign(new Error("gone"), { code: "ENOENT" }))
      : read(bucket, key);
  const page = await store.listObjects("b", { prefix: "p/", maxKeys: 2 });
  assert.deepEqual(
    page.objects.map((o) => o.key),
    ["p/3", "p/4"],
  );
  assert.equal(page.isTruncated, false);
  const first = await store.listObjects("b", { prefix: "p/", maxKeys: 1 });
  assert.deepEqual(
    first.objects.map((o) => o.key),
    ["p/3"],
  );
  assert.equal(first.isTruncated, true);
});
