import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { decodeLease, encodeLease, type LeaseRecord } from "./lease-record.ts";

const record: fc.Arbitrary<LeaseRecord> = fc.record(
  {
    member: fc.string({ minLength: 1 }),
    epoch: fc.nat(),
    since: fc.nat(),
    state: fc.constantFrom("live", "fencing", "fenced"),
    by: fc.string(),
    writes: fc.nat(),
    released: fc.dictionary(fc.string(), fc.nat(), { noNullPrototype: true }),
  },
  {
    requiredKeys: ["member", "epoch", "since", "state", "writes", "released"],
    noNullPrototype: true,
  },
);

test("a lease record decodes to what was encoded", () => {
  fc.assert(
    fc.property(record, (r) => assert.deepEqual(decodeLease("leases/x", encodeLease(r)), r)),
  );
});

test("a damaged lease object is an error naming it", () => {
  assert.throws(() => decodeLease("leases/x", Buffer.from("{")), /leases\/x is not JSON/);
  for (const bad of [
    {},
    { member: "a", epoch: -1, since: 0, state: "live", writes: 0, released: {} },
    { member: "a", epoch: 1, since: 0, state: "gone", writes: 0, released: {} },
    { member: "a", epoch: 1, since: 0, state: "live", writes: 0, released: { b: "1" } },
    { member: "a", epoch: 1.5, since: 0, state: "live", writes: 0, released: {} },
  ]) {
    assert.throws(
      () => decodeLease("leases/x", Buffer.from(JSON.stringify(bad))),
      /leases\/x is not a lease record/,
    );
  }
});
