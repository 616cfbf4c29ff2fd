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

test("each value that leaves is handed to the eviction callback once: evicted, replaced, deleted", () => {
  const left: string[] = [];
  const lru = new ByteLru<string>(10, (v) => left.push(v));
  lru.set("a", "a1", 4);
  lru.set("b", "b1", 4);
  lru.get("a");
  lru.set("c", "c1", 4);
  assert.deepEqual(left, ["b1"]);
  lru.set("a", "a2", 4);
  assert.deepEqual(left, ["b1", "a1"]);
  lru.delete("c");
  lru.delete("c");
  assert.deepEqual(left, ["b1", "a1", "c1"]);
  // Too large to keep: never held, so never handed back.
  lru.set("d", "d1", 11);
  assert.deepEqual(left, ["b1", "a1", "c1"]);
});
