import assert from "node:assert/strict";
import { test } from "node:test";
import { createMemoryStore } from "./memory-store.ts";
import { compareKeys } from "./object-store.ts";
import { describeObjectStoreContract, memoryTarget } from "./store-contract.test-helper.ts";

describeObjectStoreContract("memory", memoryTarget);

test("presigned URLs name the bucket and the percent-encoded key", async () => {
  const store = createMemoryStore("segments");
  assert.equal(store.bucket, "segments");
  await store.put("a b/ü%", Buffer.from("x"));
  assert.equal(await store.presignGet("a b/ü%", 60), "memory://segments/a%20b/%C3%BC%25");
});

test("stores are independent", async () => {
  const one = createMemoryStore();
  const two = createMemoryStore();
  await one.put("k", Buffer.from("v"));
  assert.equal(await two.get("k"), undefined);
});

test("keys compare by UTF-8 bytes, not UTF-16 code units", () => {
  assert.ok(compareKeys("\u{FF21}", "\u{1F600}") < 0);
  assert.ok("\u{FF21}" > "\u{1F600}");
  assert.ok(compareKeys("a-c", "a/b") < 0);
  assert.equal(compareKeys("x", "x"), 0);
});
