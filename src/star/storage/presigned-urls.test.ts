import assert from "node:assert/strict";
import { test } from "node:test";
import { createMemoryStore } from "../../platform/objstore/index.ts";
import { PresignedUrls } from "./presigned-urls.ts";

function counting() {
  const store = createMemoryStore();
  const lifetimes: number[] = [];
  return {
    store: {
      ...store,
      presignGet: (key: string, s: number) => {
        lifetimes.push(s);
        return store.presignGet(key, s);
      },
    },
    signed: () => lifetimes.length,
    lifetimes,
  };
}

test("a URL is handed out again while half its lifetime is left, then signed anew", async () => {
  const { store, signed } = counting();
  const urls = new PresignedUrls(store, 10);
  const first = await urls.get("k", 100, 10_500);
  assert.equal(first.validUntil, 110_000, "good until the signing second plus the TTL");
  assert.equal(await urls.get("k", 100, 60_000), first);
  assert.equal(signed(), 1);
  const second = await urls.get("k", 100, 60_001);
  assert.equal(signed(), 2);
  assert.equal(second.validUntil, 160_000);
});

test("bounded: past the count the least recently used are dropped", async () => {
  const { store, signed } = counting();
  const urls = new PresignedUrls(store, 2);
  await urls.get("a", 100, 0);
  await urls.get("b", 100, 0);
  await urls.get("a", 100, 0); // a is now the most recently used
  await urls.get("c", 100, 0); // drops b
  assert.equal(signed(), 3);
  await urls.get("a", 100, 0);
  assert.equal(signed(), 3);
  await urls.get("b", 100, 0);
  assert.equal(signed(), 4);
});

test("a URL never outlives notAfter: one signed shorter goes to that caller only", async () => {
  const { store, lifetimes } = counting();
  const urls = new PresignedUrls(store, 10);
  const kept = await urls.get("k", 100, 10_000);
  assert.deepEqual(await urls.get("k", 100, 20_000, 200_000), kept, "it expires before then");
  const short = await urls.get("k", 100, 20_000, 50_500);
  assert.deepEqual([short.validUntil, lifetimes.at(-1)], [50_000, 30]);
  assert.equal(await urls.get("k", 100, 20_000), kept, "the full-lifetime URL is still kept");
  const last = await urls.get("k", 100, 20_999, 21_500);
  assert.deepEqual([last.validUntil, lifetimes.at(-1)], [21_000, 1], "at least a second");
  assert.equal(lifetimes.length, 3);
});
