import assert from "node:assert/strict";
import { test } from "node:test";
import { LeaderCache } from "./leader-cache.ts";

test("remembers, replaces and forgets a stream's leader", () => {
  const cache = new LeaderCache();
  assert.equal(cache.get("b", "k"), undefined);
  cache.set("b", "k", "a:1");
  assert.equal(cache.get("b", "k"), "a:1");
  cache.set("b", "k", "a:2");
  assert.equal(cache.get("b", "k"), "a:2");
  assert.equal(cache.size, 1);
  cache.forget("b", "k");
  assert.equal(cache.get("b", "k"), undefined);
  assert.equal(cache.size, 0);
});

test("bucket and key never collide, whatever bytes the key holds", () => {
  const cache = new LeaderCache();
  cache.set("a", "b/c", "x:1");
  cache.set("a/b", "c", "y:1");
  assert.equal(cache.get("a", "b/c"), "x:1");
  assert.equal(cache.get("a/b", "c"), "y:1");
});

test("is bounded: the least recently used entry goes first", () => {
  const cache = new LeaderCache(2);
  cache.set("b", "x", "a:1");
  cache.set("b", "y", "a:1");
  assert.equal(cache.get("b", "x"), "a:1"); // x is now the most recently used
  cache.set("b", "z", "a:2");
  assert.equal(cache.size, 2);
  assert.equal(cache.get("b", "y"), undefined);
  assert.equal(cache.get("b", "x"), "a:1");
  assert.equal(cache.get("b", "z"), "a:2");
  // The evicted entry no longer counts as led by its address.
  cache.forgetAddress("a:1");
  assert.equal(cache.size, 1);
});

test("forgetAddress drops every stream led by that star and only those", () => {
  const cache = new LeaderCache();
  cache.set("b", "1", "dead:1");
  cache.set("b", "2", "dead:1");
  cache.set("b", "3", "live:1");
  cache.set("b", "4", "dead:1");
  cache.set("b", "4", "live:1"); // moved: no longer on the dead star
  cache.forgetAddress("dead:1");
  assert.equal(cache.get("b", "1"), undefined);
  assert.equal(cache.get("b", "2"), undefined);
  assert.equal(cache.get("b", "3"), "live:1");
  assert.equal(cache.get("b", "4"), "live:1");
  assert.equal(cache.size, 2);
  cache.set("b", "1", "dead:1"); // the star came back
  assert.equal(cache.get("b", "1"), "dead:1");
});

test("refuses a bound below one", () => {
  assert.throws(() => new LeaderCache(0), RangeError);
});
