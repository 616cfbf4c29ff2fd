import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { type SettlePolicy, streamsToSettle, type UnsettledStream } from "./settle-policy.ts";

const NOW = 1_000_000;
const policyArb: fc.Arbitrary<SettlePolicy> = fc.record({
  chunkBytes: fc.integer({ min: 1, max: 5000 }),
  maxAgeMs: fc.integer({ min: 0, max: 5000 }),
  maxUnsettledBytes: fc.integer({ min: 0, max: 20_000 }),
});
const streamsArb = fc
  .uniqueArray(
    fc.record({
      id: fc.string({ minLength: 1, maxLength: 6 }),
      bytes: fc.nat(6000),
      objects: fc.nat(6000),
      oldestMs: fc.option(fc.integer({ min: NOW - 10_000, max: NOW }), { nil: undefined }),
    }),
    { selector: (s) => s.id, maxLength: 30 },
  )
  .map((streams) => streams.map(({ objects, ...s }) => ({ ...s, memory: s.bytes + objects })));

test("property: due streams settle, the rest fit the memory cap, nothing empty or twice", () => {
  fc.assert(
    fc.property(streamsArb, policyArb, (streams, policy) => {
      const chosen = streamsToSettle(streams, NOW, policy);
      assert.equal(new Set(chosen).size, chosen.length, "no stream twice");
      const byId = new Map(streams.map((s) => [s.id, s]));
      for (const id of chosen) assert.notEqual(byId.get(id)?.oldestMs, undefined, "never empty");
      const due = (s: UnsettledStream) =>
        s.oldestMs !== undefined &&
        (s.bytes >= policy.chunkBytes || NOW - s.oldestMs >= policy.maxAgeMs);
      for (const s of streams) if (due(s)) assert.ok(chosen.includes(s.id), `${s.id} is due`);
      const left = streams.filter((s) => s.oldestMs !== undefined && !chosen.includes(s.id));
      assert.ok(left.reduce((n, s) => n + s.memory, 0) <= policy.maxUnsettledBytes);
    }),
    { numRuns: 300 },
  );
});

test("over the cap, the largest streams settle first", () => {
  const streams = [
    { id: "small", bytes: 10, memory: 10, oldestMs: NOW },
    { id: "big", bytes: 500, memory: 500, oldestMs: NOW },
    { id: "mid", bytes: 100, memory: 100, oldestMs: NOW },
  ];
  const policy = { chunkBytes: 1000, maxAgeMs: 60_000, maxUnsettledBytes: 200 };
  assert.deepEqual(streamsToSettle(streams, NOW, policy), ["big"]);
});

test("a quiet stream settles after the time bound, not before", () => {
  const policy = { chunkBytes: 1000, maxAgeMs: 5000, maxUnsettledBytes: 1e9 };
  const s = { id: "quiet", bytes: 1, memory: 201, oldestMs: NOW - 4999 };
  assert.deepEqual(streamsToSettle([s], NOW, policy), []);
  assert.deepEqual(streamsToSettle([s], NOW + 1, policy), ["quiet"]);
});

test("over the cap, records without content settle by the memory they hold", () => {
  const streams = [
    { id: "empty-records", bytes: 0, memory: 400, oldestMs: NOW },
    { id: "content", bytes: 150, memory: 160, oldestMs: NOW },
  ];
  const policy = { chunkBytes: 1000, maxAgeMs: 60_000, maxUnsettledBytes: 200 };
  assert.deepEqual(streamsToSettle(streams, NOW, policy), ["empty-records"]);
});
