import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { ReadGrants } from "./read-grants.ts";

const jwt = (expMs: number) =>
  `Bearer h.${Buffer.from(JSON.stringify({ exp: expMs / 1000 })).toString("base64url")}.s`;

test("a grant holds for its exact credential and stream, until the ttl", () => {
  const g = new ReadGrants(1000);
  g.add("Bearer a", "b", "k", 0);
  assert.ok(g.has("Bearer a", "b", "k", 999));
  assert.ok(!g.has("Bearer a", "b", "k", 1000));
  assert.ok(!g.has("Bearer a", "b", "k", 1));
  g.add(undefined, "b", "k", 0);
  for (const [cred, bucket, key] of [
    ["Bearer A", "b", "k"],
    ["Bearer a", "b", "k2"],
    ["Bearer a", "b2", "k"],
    ["Bearer a ", "b", "k"],
    ["", "b", "k"],
  ] as const) {
    assert.ok(!g.has(cred, bucket, key, 1), `${cred} ${bucket} ${key}`);
  }
  assert.ok(g.has(undefined, "b", "k", 1));
  // Names that would run together in a plain join stay apart.
  g.add("x", "a,b", "c", 0);
  assert.ok(!g.has("x", "a", "b,c", 1));
});

test("never past the token's own expiry; an expired token is not remembered", () => {
  const g = new ReadGrants(10_000);
  g.add(jwt(500), "b", "k", 0);
  assert.ok(g.has(jwt(500), "b", "k", 499));
  assert.ok(!g.has(jwt(500), "b", "k", 500));
  g.add(jwt(100), "b", "k", 200);
  assert.ok(!g.has(jwt(100), "b", "k", 200));
});

test("ttl 0 remembers nothing; the map never holds more than its bound, the oldest going first", () => {
  const off = new ReadGrants(0);
  off.add("Bearer a", "b", "k", 0);
  assert.ok(!off.has("Bearer a", "b", "k", 0));
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 8 }),
      fc.array(fc.nat({ max: 20 }), { maxLength: 60 }),
      (max, creds) => {
        const g = new ReadGrants(1000, max);
        for (const c of creds) {
          g.add(`Bearer ${c}`, "b", "k", 0);
          assert.ok(g.size <= max);
          assert.ok(g.has(`Bearer ${c}`, "b", "k", 0), "the newest grant is kept");
        }
      },
    ),
  );
});

test("readers checking together on one credential share one check; a no or a failure is not kept", async () => {
  const g = new ReadGrants(1000);
  let asks = 0;
  let answer: (ok: boolean) => void = () => {};
  const ask = () => {
    asks++;
    return new Promise<boolean>((resolve) => {
      answer = resolve;
    });
  };
  const together = [1, 2, 3].map(() => g.check("Bearer a", "b", "k", ask));
  const other = g.check("Bearer b", "b", "k", async () => true);
  answer(true);
  assert.deepEqual(await Promise.all(together), [true, true, true]);
  assert.equal(await other, true);
  assert.equal(asks, 1);
  assert.equal(await g.check("Bearer a", "b", "k", ask), true);
  assert.equal(asks, 1, "granted: no new check");

  const missing = () => Promise.resolve(false);
  assert.equal(await g.check("Bearer a", "b", "gone", missing), false);
  assert.ok(!g.has("Bearer a", "b", "gone"));
  const refused = () => Promise.reject(new Error("PERMISSION_DENIED"));
  await assert.rejects(
    Promise.all([g.check("Bearer c", "b", "k", refused), g.check("Bearer c", "b", "k", refused)]),
    /PERMISSION_DENIED/,
  );
  assert.ok(!g.has("Bearer c", "b", "k"));
  assert.equal(await g.check("Bearer c", "b", "k", async () => true), true, "asked again");
});

test("expired grants go as new ones come, not only when asked for again", () => {
  const g = new ReadGrants(1000);
  for (let i = 0; i < 100; i++) g.add(`Bearer ${"a".repeat(12_000)}${i}`, "b", "k", 0);
  assert.equal(g.size, 100);
  g.add("Bearer later", "b", "k", 1000);
  assert.equal(g.size, 1, "the hundred expired grants are gone");
  assert.ok(g.has("Bearer later", "b", "k", 1999));
});
