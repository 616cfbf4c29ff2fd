import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { prefetch } from "./prefetch.ts";

async function* items(n: number, failAt?: number): AsyncGenerator<number> {
  for (let i = 0; i < n; i++) {
    await Promise.resolve();
    if (i === failAt) throw new Error(`source failed at ${i}`);
    yield i;
  }
}

test("yields every item in order, never more than depth+1 loads started and unconsumed", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 0, max: 20 }),
      fc.integer({ min: 0, max: 4 }),
      fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 20, maxLength: 20 }),
      async (n, depth, delays) => {
        let started = 0;
        let consumed = 0;
        let most = 0;
        const load = async (i: number) => {
          started++;
          most = Math.max(most, started - consumed);
          for (let k = 0; k < (delays[i] ?? 0); k++) await Promise.resolve();
          return i * 10;
        };
        const got: number[] = [];
        for await (const { entry, result } of prefetch(
          items(n),
          load,
          depth,
          new AbortController().signal,
        )) {
          assert.ok(result.ok);
          assert.equal(result.value, entry * 10);
          got.push(entry);
          consumed++;
        }
        assert.deepEqual(
          got,
          Array.from({ length: n }, (_, i) => i),
        );
        assert.ok(most <= depth + 1, `${most} loads ahead with depth ${depth}`);
      },
    ),
  );
});

test("a failed load is yielded in its place; the next ones still come", async () => {
  const load = async (i: number) => {
    if (i === 1) throw new Error("no");
    return i;
  };
  const got: string[] = [];
  for await (const { entry, result } of prefetch(items(3), load, 2, new AbortController().signal)) {
    got.push(result.ok ? `${entry}:ok` : `${entry}:${(result.error as Error).message}`);
  }
  assert.deepEqual(got, ["0:ok", "1:no", "2:ok"]);
});

test("a failing source surfaces after the items before it", async () => {
  const got: number[] = [];
  await assert.rejects(async () => {
    for await (const { entry } of prefetch(
      items(5, 3),
      async (i) => i,
      2,
      new AbortController().signal,
    )) {
      got.push(entry);
    }
  }, /source failed at 3/);
  assert.deepEqual(got, [0, 1, 2]);
});

test("stopping starts no more loads; those under way are left to finish", async () => {
  const signals: AbortSignal[] = [];
  let pulled = 0;
  async function* counted(): AsyncGenerator<number> {
    for (let i = 0; i < 10; i++) {
      pulled++;
      yield i;
    }
  }
  const load = (i: number, signal: AbortSignal) => {
    signals.push(signal);
    return i === 0 ? Promise.resolve(i) : new Promise<number>(() => {});
  };
  for await (const { entry } of prefetch(counted(), load, 3, new AbortController().signal)) {
    assert.equal(entry, 0);
    break;
  }
  assert.equal(signals.length, 4);
  assert.ok(signals.every((s) => !s.aborted));
  assert.ok(pulled <= 5, `${pulled} items pulled`);
});

test("the caller's signal aborts every load", async () => {
  const outer = new AbortController();
  const signals: AbortSignal[] = [];
  const load = (_i: number, signal: AbortSignal) => {
    signals.push(signal);
    return new Promise<number>((_, reject) =>
      signal.addEventListener("abort", () => reject(signal.reason), { once: true }),
    );
  };
  const it = prefetch(items(10), load, 2, outer.signal);
  const next = it.next();
  await new Promise((resolve) => setImmediate(resolve));
  outer.abort(new Error("client went away"));
  await assert.rejects(next, /client went away/);
  assert.ok(signals.length > 0 && signals.every((s) => s.aborted));
});
