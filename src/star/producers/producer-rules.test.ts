import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import {
  type BatchAck,
  judge,
  type ProducerEntry,
  REMEMBERED_ACKS,
  remember,
} from "./producer-rules.ts";

const u64 = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });
const ackAt = (seq: bigint): BatchAck => ({
  seq,
  start: seq * 10n,
  end: seq * 10n + 3n,
  timestampMs: seq,
});

/** What a producer that sends seq 0..n-1 in epoch `epoch` leaves behind. */
function sent(epoch: bigint, n: number, from?: ProducerEntry): ProducerEntry | undefined {
  let entry = from;
  for (let i = 0n; i < BigInt(n); i++) entry = remember(entry, epoch, ackAt(i), 1);
  return entry;
}

test("property: an unknown producer starts at seq 0 and nowhere else", () => {
  fc.assert(
    fc.property(u64, u64, (epoch, seq) => {
      const v = judge(undefined, { id: "p", epoch, seq });
      if (seq === 0n) assert.deepEqual(v, { kind: "accept" });
      else assert.deepEqual(v, { kind: "gap", expected: 0n, unknown: true });
    }),
  );
});

test("property: in one epoch, last+1 is accepted, above it a gap, at or below a duplicate", () => {
  fc.assert(
    fc.property(u64, fc.integer({ min: 1, max: 30 }), u64, (epoch, n, seq) => {
      const entry = sent(epoch, n) as ProducerEntry;
      const last = BigInt(n - 1);
      const v = judge(entry, { id: "p", epoch, seq });
      if (seq === last + 1n) assert.deepEqual(v, { kind: "accept" });
      else if (seq > last)
        assert.deepEqual(v, { kind: "gap", expected: last + 1n, unknown: false });
      else if (last - seq < BigInt(REMEMBERED_ACKS))
        assert.deepEqual(v, { kind: "duplicate", ack: ackAt(seq) });
      else assert.deepEqual(v, { kind: "stale", lastSeq: last });
    }),
  );
});

test("property: a lower epoch is fenced and a higher one starts at 0, compared exactly past 2^53", () => {
  fc.assert(
    fc.property(u64, u64, u64, (current, epoch, seq) => {
      const entry = sent(current, 3) as ProducerEntry;
      const v = judge(entry, { id: "p", epoch, seq });
      if (epoch < current) assert.deepEqual(v, { kind: "fenced", currentEpoch: current });
      else if (epoch > current) {
        assert.deepEqual(
          v,
          seq === 0n ? { kind: "accept" } : { kind: "gap", expected: 0n, unknown: false },
        );
      }
    }),
  );
  const big = 2n ** 53n + 1n;
  assert.equal(judge(sent(big, 1), { id: "p", epoch: 2n ** 53n, seq: 0n }).kind, "fenced");
});

test("property: remembering is idempotent and a replayed prefix changes nothing", () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.bigInt({ min: 0n, max: 3n }), fc.bigInt({ min: 0n, max: 20n })), {
        maxLength: 30,
      }),
      fc.nat(30),
      (marks, cut) => {
        const apply = (list: typeof marks, from?: ProducerEntry) =>
          list.reduce<ProducerEntry | undefined>(
            (e, [epoch, seq]) => remember(e, epoch, ackAt(seq), 1),
            from,
          );
        const whole = apply(marks);
        assert.deepEqual(apply(marks, whole), whole);
        assert.deepEqual(apply(marks, apply(marks.slice(0, cut))), whole);
      },
    ),
  );
});

test("property: the entry keeps the highest epoch, its highest seq, and at most the window", () => {
  fc.assert(
    fc.property(fc.array(fc.tuple(u64, u64), { minLength: 1, maxLength: 40 }), (marks) => {
      const entry = marks.reduce<ProducerEntry | undefined>(
        (e, [epoch, seq]) => remember(e, epoch, ackAt(seq), 1),
        undefined,
      ) as ProducerEntry;
      let top = 0n;
      for (const [e] of marks) if (e > top) top = e;
      assert.equal(entry.epoch, top);
      assert.ok(entry.acks.length <= REMEMBERED_ACKS);
      assert.equal(entry.acks.at(-1)?.seq, entry.seq);
      for (let i = 1; i < entry.acks.length; i++) {
        assert.ok((entry.acks[i] as BatchAck).seq > (entry.acks[i - 1] as BatchAck).seq);
      }
    }),
  );
});

test("a retry of the last batch gets its original position; of the newest window too", () => {
  const entry = sent(7n, 20) as ProducerEntry;
  assert.deepEqual(judge(entry, { id: "p", epoch: 7n, seq: 19n }), {
    kind: "duplicate",
    ack: ackAt(19n),
  });
  assert.deepEqual(judge(entry, { id: "p", epoch: 7n, seq: 12n }), {
    kind: "duplicate",
    ack: ackAt(12n),
  });
  assert.deepEqual(judge(entry, { id: "p", epoch: 7n, seq: 11n }), { kind: "stale", lastSeq: 19n });
});
