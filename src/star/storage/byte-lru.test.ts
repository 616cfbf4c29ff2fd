import assert from "node:assert/strict";
import { test } from "node:test";
import { ByteLru } from "./byte-lru.ts";

test("evicts the least recently used entries to stay within the budget", () => {
  const lru = new ByteLru<string>(10);
  lru.set("a", "A", 4);
  lru.set("b", "B", 4);
  assert.equal(lru.get("a"), "A");
  lru.set("c", "C", 4);
  assert.equal(lru.get("b"), undefined);
  assert.equal(lru.get("a"), "A");
  assert.equal(lru.get("c"), "C");
  assert.equal(lru.bytes, 8);
});

test("does not keep a value larger than the budget", () => {
  const lru = new ByteLru<string>(10);
  lru.set("a", "A", 4);
  lru.set("big", "X", 11);
  assert.equal(lru.get("big"), undefined);
  assert.equal(lru.get("a"), "A");
});

test("replacing and deleting keep the byte count right", () => {
  const lru = new ByteLru<string>(10);
  lru.set("a", "A", 4);
  lru.set("a", "A2", 6);
  assert.equal(lru.bytes, 6);
  lru.delete("a");
  assert.equal(lru.bytes, 0);
});
