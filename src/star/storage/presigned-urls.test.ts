import assert from "node:assert/strict";
import { test } from "node:test";
import { createMemoryStore } from "../../platform/objstore/index.ts";
import { PresignedUrls } from "./presigned-urls.ts";

function counting() {
  const store = createMemoryStore();
  let signed = 0;
  return {
    store: {
      ...store,
      presignGet: (key: string, s: number) => {
        signed++;
        return store.presignGet(key, s);
      },
    },
    signed: () => signed,
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
