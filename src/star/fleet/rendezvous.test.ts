import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { rendezvous, streamItem, weight } from "./rendezvous.ts";

const name = fc.stringMatching(/^[a-z0-9-]{1,12}$/);
const fleetArb = fc
  .uniqueArray(name, { minLength: 1, maxLength: 8 })
  .map((names) => names.map((n) => ({ name: n, address: `${n}:7171` })));
const item = fc.tuple(fc.stringMatching(/^[a-z0-9]{3,10}$/), fc.string({ maxLength: 40 }));

test("the weight is SHA-256 of member NUL item, pinned: a new hash would move every stream", () => {
  assert.equal(weight("star-1", "bucket/key"), 0xb90684ffcc8bee33n);
  assert.equal(weight("s1", "b/k"), 0x590fb04ae1fc7b78n);
});

test("deterministic, and independent of the order members are listed in", () => {
  fc.assert(
    fc.property(fleetArb, item, fc.integer(), (members, [b, k], seed) => {
      const chosen = rendezvous(members, streamItem(b, k));
      assert.equal(rendezvous(members, streamItem(b, k)), chosen);
      const shuffled = [...members].sort((x, y) =>
        weight(String(seed), x.name) < weight(String(seed), y.name) ? -1 : 1,
      );
      assert.equal(rendezvous(shuffled, streamItem(b, k)).name, chosen.name);
    }),
  );
});

test("every member leads some streams", () => {
  fc.assert(
    fc.property(fleetArb, (members) => {
      const led = new Set<string>();
      for (let i = 0; i < 400 && led.size < members.length; i++) {
        led.add(rendezvous(members, streamItem("bucket", `key-${i}`)).name);
      }
      assert.equal(led.size, members.length);
    }),
    { numRuns: 50 },
  );
});

test("removing a member that does not lead a stream never moves it", () => {
  fc.assert(
    fc.property(fleetArb, item, fc.nat(), ([...members], [b, k], pick) => {
      const leader = rendezvous(members, streamItem(b, k));
      const others = members.filter((m) => m !== leader);
      if (others.length === 0) return;
      const gone = others[pick % others.length];
      const rest = members.filter((m) => m !== gone);
      assert.equal(rendezvous(rest, streamItem(b, k)), leader);
    }),
  );
});

test("adding a member moves a stream only to the new member", () => {
  fc.assert(
    fc.property(fleetArb, name, item, (members, extra, [b, k]) => {
      if (members.some((m) => m.name === extra)) return;
      const before = rendezvous(members, streamItem(b, k));
      const after = rendezvous([...members, { name: extra, address: "x:1" }], streamItem(b, k));
      assert.ok(after === before || after.name === extra);
    }),
  );
});

test("an empty fleet has no leader", () => {
  assert.throws(() => rendezvous([], "b/k"), RangeError);
});
