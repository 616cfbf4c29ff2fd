import assert from "node:assert/strict";
import { test } from "node:test";
import { ChunkCache } from "./chunk-cache.ts";

interface Pending {
  key: string;
  signal: AbortSignal;
  resolve: (v: string) => void;
  reject: (e: unknown) => void;
}

/** A loader whose loads the test settles by hand. */
function manualLoader() {
  const pending: Pending[] = [];
  const load = (key: string) => (signal: AbortSignal) =>
    new Promise<string>((resolve, reject) => pending.push({ key, signal, resolve, reject }));
  return { pending, load };
}

const never = new AbortController().signal;

test("concurrent readers of one key share one load; later readers hit the cache", async () => {
  const cache = new ChunkCache<string>(100, (v) => v.length);
  const { pending, load } = manualLoader();
  const a = cache.get("k", load("k"), never);
  const b = cache.get("k", load("k"), never);
  assert.equal(pending.length, 1);
  pending[0]?.resolve("value");
  assert.deepEqual(await a, { value: "value", outcome: "loaded" });
  assert.deepEqual(await b, { value: "value", outcome: "shared" });
  assert.deepEqual(await cache.get("k", load("k"), never), { value: "value", outcome: "hit" });
  assert.equal(pending.length, 1);
});

test("one reader going away does not cancel a shared load; the last one does", async () => {
  const cache = new ChunkCache<string>(100, (v) => v.length);
  const { pending, load } = manualLoader();
  const ca = new AbortController();
  const cb = new AbortController();
  const a = cache.get("k", load("k"), ca.signal);
  const b = cache.get("k", load("k"), cb.signal);
  ca.abort();
  await assert.rejects(a, { name: "AbortError" });
  assert.equal(pending[0]?.signal.aborted, false);
  cb.abort();
  await assert.rejects(b, { name: "AbortError" });
  assert.equal(pending[0]?.signal.aborted, true);
  // A new reader starts a new load rather than joining the cancelled one.
  const c = cache.get("k", load("k"), never);
  assert.equal(pending.length, 2);
  pending[1]?.resolve("v2");
  assert.equal((await c).value, "v2");
});

test("failures reach every waiter and are not cached", async () => {
  const cache = new ChunkCache<string>(100, (v) => v.length);
  const { pending, load } = manualLoader();
  const a = cache.get("k", load("k"), never);
  const b = cache.get("k", load("k"), never);
  pending[0]?.reject(new Error("boom"));
  await assert.rejects(a, /boom/);
  await assert.rejects(b, /boom/);
  const c = cache.get("k", load("k"), never);
  assert.equal(pending.length, 2);
  pending[1]?.resolve("ok");
  assert.equal((await c).outcome, "loaded");
});

test("the byte budget evicts the least recently used", async () => {
  const cache = new ChunkCache<string>(10, (v) => v.length);
  const put = async (key: string, value: string) => {
    const { pending, load } = manualLoader();
    const got = cache.get(key, load(key), never);
    pending[0]?.resolve(value);
    return got;
  };
  await put("a", "aaaa");
  await put("b", "bbbb");
  assert.equal(cache.bytes, 8);
  // Touch "a" so that "b" is the least recently used.
  assert.equal((await cache.get("a", () => Promise.reject(new Error("x")), never)).outcome, "hit");
  await put("c", "cccc");
  assert.equal(cache.bytes, 8);
  assert.equal((await cache.get("a", () => Promise.reject(new Error("x")), never)).outcome, "hit");
  await assert.rejects(
    cache.get("b", () => Promise.reject(new Error("evicted")), never),
    /evicted/,
  );
  // A value larger than the budget is served but not kept.
  assert.equal((await put("big", "x".repeat(11))).value.length, 11);
  assert.equal(cache.bytes, 8);
});

test("an already aborted reader is refused at once", async () => {
  const cache = new ChunkCache<string>(10, (v) => v.length);
  const c = new AbortController();
  c.abort();
  await assert.rejects(
    cache.get("k", () => Promise.resolve("v"), c.signal),
    { name: "AbortError" },
  );
});

test("a load every reader left that completes anyway is let go as an evicted value", async () => {
  const evicted: string[] = [];
  const cache = new ChunkCache<string>(
    100,
    (v) => v.length,
    (v) => evicted.push(v),
  );
  const { pending, load } = manualLoader();
  const reader = new AbortController();
  const got = cache.get("k", load("k"), reader.signal);
  reader.abort();
  await assert.rejects(got, { name: "AbortError" });
  // The fetch finished just as the last reader left.
  pending[0]?.resolve("done");
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(evicted, ["done"], "its memory goes back");
  assert.equal(cache.bytes, 0, "and it is not kept");
});
