import assert from "node:assert/strict";
import { test } from "node:test";
import type { Bucket__Output } from "../../gen/nova/v1/Bucket.ts";
import type { ObjectStore } from "../../platform/objstore/index.ts";
import { createMemoryStore } from "../../platform/objstore/index.ts";
import { Catalog } from "./catalog.ts";
import { bucketKey, streamKey } from "./keys.ts";

const bucket = (name: string, token: string) =>
  ({ name, creation_token: token, deleted_at_unix_ms: "0" }) as Bucket__Output;

/** `store` with reads of `key` held until `release()`: a read still out while others run. */
function gated(store: ObjectStore, key: string): { slow: ObjectStore; release: () => void } {
  let release: () => void = () => undefined;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  const slow = {
    ...store,
    get: async (k: string) => {
      const bytes = await store.get(k);
      if (k === key) await gate;
      return bytes;
    },
  };
  return { slow, release };
}

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

test("a write whose answer was lost (it landed) is read afresh, not served from the cache", async () => {
  const store = createMemoryStore();
  // PUTs land, then fail, while `lose` says so: a timeout after the write.
  let lose = false;
  const lossy: ObjectStore = {
    ...store,
    put: async (key, body) => {
      await store.put(key, body);
      if (lose) throw new Error("socket timeout (the PUT landed)");
    },
  };
  const catalog = new Catalog(lossy);
  assert.equal(await catalog.getBucket("b1"), undefined, "absence cached");
  await catalog.putBucket(bucket("b1", "one"));
  lose = true;
  await assert.rejects(
    catalog.putBucket({ ...bucket("b1", "one"), deleted_at_unix_ms: "5" }),
    /socket timeout/,
  );
  assert.equal((await catalog.getBucket("b1"))?.deleted_at_unix_ms, "5");
  await assert.rejects(
    catalog.putStream({
      bucket: "b1",
      key: "s",
      stream_id: "u1",
      deleted_at_unix_ms: "0",
    } as never),
    /socket timeout/,
  );
  assert.equal((await catalog.getStream("b1", "s"))?.stream_id, "u1");
});

test("a write that lands while a read is out wins over what the read found", async () => {
  const store = createMemoryStore();
  await store.put(bucketKey("b"), Buffer.from(JSON.stringify(bucket("b", "old"))));
  const { slow, release } = gated(store, bucketKey("b"));
  const catalog = new Catalog(slow);
  const reading = catalog.getBucket("b");
  catalog.rememberBucket(bucket("b", "new"));
  release();
  assert.equal((await reading)?.creation_token, "new");
  assert.equal((await catalog.getBucket("b"))?.creation_token, "new");
});

test("the cache keeps at most maxEntries descriptors, the least recently used dropped", async () => {
  const store = createMemoryStore();
  const catalog = new Catalog(store, { maxEntries: 2 });
  for (const name of ["b1", "b2"]) await catalog.putBucket(bucket(name, "one"));
  assert.equal((await catalog.getBucket("b1"))?.creation_token, "one");
  await catalog.putBucket(bucket("b3", "one"));
  // b2 was used least recently: dropped, so the next read of it goes to storage.
  await store.put(bucketKey("b1"), Buffer.from(JSON.stringify(bucket("b1", "two"))));
  await store.put(bucketKey("b2"), Buffer.from(JSON.stringify(bucket("b2", "two"))));
  assert.equal((await catalog.getBucket("b1"))?.creation_token, "one");
  assert.equal((await catalog.getBucket("b2"))?.creation_token, "two");
  // Misses are entries too, and bounded the same way.
  for (let i = 0; i < 10; i++) assert.equal(await catalog.getBucket(`missing-${i}`), undefined);
  await store.put(bucketKey("b3"), Buffer.from(JSON.stringify(bucket("b3", "two"))));
  assert.equal((await catalog.getBucket("b3"))?.creation_token, "two");
});

test("a read that a write overtook is not cached, even when the write was dropped since", async () => {
  const store = createMemoryStore();
  await store.put(bucketKey("b"), Buffer.from(JSON.stringify(bucket("b", "old"))));
  const { slow, release } = gated(store, bucketKey("b"));
  const catalog = new Catalog(slow, { maxEntries: 1 });
  const reading = catalog.getBucket("b");
  await catalog.putBucket(bucket("b", "new"));
  await catalog.putBucket(bucket("other", "x"));
  release();
  await reading;
  // A fleet of one trusts its cache forever: the read's older find must not be what it keeps.
  assert.equal((await catalog.getBucket("b"))?.creation_token, "new");
});

test("a descriptor written before a field existed reads with what its absence means", async () => {
  const store = createMemoryStore();
  const catalog = new Catalog(store);
  await store.put(bucketKey("old"), Buffer.from(JSON.stringify(bucket("old", "t"))));
  await store.put(
    streamKey("old", "s"),
    Buffer.from(JSON.stringify({ bucket: "old", key: "s", stream_id: "id" })),
  );
  assert.equal((await catalog.getBucket("old"))?.default_delete_on_empty_min_age_ms, "0");
  assert.equal((await catalog.getStream("old", "s"))?.delete_on_empty_min_age_ms, "0");
});

test("a bucket page after start_after never repeats it, also when it equals the prefix", async () => {
  const catalog = new Catalog(createMemoryStore());
  for (const name of ["ab", "ab-1", "ab-2", "ac"]) await catalog.putBucket(bucket(name, name));
  const names = async (prefix: string, startAfter: string, limit: number) =>
    (await catalog.listBuckets(prefix, startAfter, limit)).items.map((b) => b.name);
  assert.deepEqual(await names("ab", "ab", 1), ["ab-1"]);
  assert.deepEqual(await names("ab", "", 10), ["ab", "ab-1", "ab-2"]);
  assert.deepEqual(await names("ab", "ab-1", 10), ["ab-2"]);
  assert.deepEqual(await names("", "ab-2", 10), ["ac"]);
  assert.deepEqual(await names("ac", "ab", 10), ["ac"]);
});

test("streams under a prefix are listed without reading the bucket's other descriptors", async () => {
  const store = createMemoryStore();
  let gets = 0;
  const counted = {
    ...store,
    get: (k: string) => {
      gets++;
      return store.get(k);
    },
  };
  const keys = [...Array.from({ length: 50 }, (_, i) => `a${i}`), "zz1", "zz2", "zz\u{1F600}"];
  for (const key of keys) {
    await store.put(streamKey("b", key), Buffer.from(JSON.stringify({ bucket: "b", key })));
  }
  const catalog = new Catalog(counted);
  const listed: string[] = [];
  for await (const s of catalog.streams("b", "", "zz")) listed.push(s.key);
  assert.deepEqual(listed, ["zz1", "zz2", "zz\u{1F600}"]);
  assert.equal(gets, 3);
});
