import assert from "node:assert/strict";
import { test } from "node:test";
import type { Bucket__Output } from "../../gen/nova/v1/Bucket.ts";
import { createMemoryStore } from "../../objstore/memory-store.ts";
import { Catalog } from "./catalog.ts";
import { bucketKey } from "./keys.ts";

const bucket = (name: string, token: string) =>
  ({ name, creation_token: token, deleted_at_unix_ms: "0" }) as Bucket__Output;

test("a fleet of one trusts its cache forever; in a fleet an entry is read again after the TTL", async () => {
  const store = createMemoryStore();
  let now = 1000;
  const single = new Catalog(store);
  const member = new Catalog(store, { ttlMs: 100, now: () => now });
  await single.putBucket(bucket("b1", "one"));
  assert.equal((await member.getBucket("b1"))?.creation_token, "one");
  // Another member rewrites the descriptor.
  await store.put(bucketKey("b1"), Buffer.from(JSON.stringify(bucket("b1", "two"))));
  assert.equal((await single.getBucket("b1"))?.creation_token, "one");
  assert.equal((await member.getBucket("b1"))?.creation_token, "one");
  now += 99;
  assert.equal((await member.getBucket("b1"))?.creation_token, "one");
  now += 1;
  assert.equal((await member.getBucket("b1"))?.creation_token, "two");
  assert.equal((await single.getBucket("b1", { fresh: true }))?.creation_token, "two");
});

test("absence is cached too, and expires the same way", async () => {
  const store = createMemoryStore();
  let now = 0;
  const member = new Catalog(store, { ttlMs: 100, now: () => now });
  assert.equal(await member.getBucket("late"), undefined);
  await store.put(bucketKey("late"), Buffer.from(JSON.stringify(bucket("late", "t"))));
  assert.equal(await member.getBucket("late"), undefined);
  now = 100;
  assert.equal((await member.getBucket("late"))?.creation_token, "t");
});

test("a write that lands while a read is out wins over what the read found", async () => {
  const store = createMemoryStore();
  await store.put(bucketKey("b"), Buffer.from(JSON.stringify(bucket("b", "old"))));
  let release: () => void = () => undefined;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  const slow = {
    ...store,
    get: async (key: string) => {
      const bytes = await store.get(key);
      await gate;
      return bytes;
    },
  };
  const catalog = new Catalog(slow);
  const reading = catalog.getBucket("b");
  catalog.rememberBucket(bucket("b", "new"));
  release();
  assert.equal((await reading)?.creation_token, "new");
  assert.equal((await catalog.getBucket("b"))?.creation_token, "new");
});
