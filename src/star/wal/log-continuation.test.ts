import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { type DecodedLogEntry, NO_MARKS } from "../../contract/codec/index.ts";
import { continueFrom, standingEntries } from "./log-continuation.ts";

/** Entries of one stream covering [0, total) cut at `cuts`, with bodies naming their seq_num. */
function entries(total: number, cuts: number[]): DecodedLogEntry[] {
  const bounds = [...new Set([0, ...cuts.filter((c) => c > 0 && c < total), total])].sort(
    (a, b) => a - b,
  );
  return bounds.slice(1).map((end, i) => {
    const start = bounds[i] as number;
    return {
      streamId: "s",
      bucket: "b",
      key: "k",
      firstSeqNum: BigInt(start),
      records: Array.from({ length: end - start }, (_, j) => ({
        seqNum: BigInt(start + j),
        timestampMs: 0n,
        headers: [],
        body: Buffer.from(String(start + j)),
      })),
      marks: NO_MARKS,
    };
  });
}

test("property: from any point, exactly the records at and after it, in order, once", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 60 }),
      fc.array(fc.nat(60), { maxLength: 10 }),
      fc.nat(70),
      (total, cuts, from) => {
        const got = continueFrom(entries(total, cuts), BigInt(from));
        const want = Array.from({ length: Math.max(0, total - from) }, (_, i) => BigInt(from + i));
        assert.deepEqual(
          got.records.map((r) => r.seqNum),
          want,
        );
        assert.equal(got.gapAt, undefined);
      },
    ),
    { numRuns: 300 },
  );
});

test("property: a missing entry the reader needs stops the continuation at its start, saying so", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 2, max: 60 }),
      fc.array(fc.nat(60), { minLength: 1, maxLength: 10 }),
      fc.nat(70),
      fc.nat(),
      (total, cuts, from, pick) => {
        const all = entries(total, cuts);
        if (all.length < 2) return;
        // Any entry but the last: one after it shows the stream goes on.
        const i = pick % (all.length - 1);
        const missing = all[i] as DecodedLogEntry;
        const start = Number(missing.firstSeqNum);
        const end = start + missing.records.length;
        const got = continueFrom(all.toSpliced(i, 1), BigInt(from));
        if (end <= from) {
          assert.equal(got.gapAt, undefined, "the reader is past it");
          return;
        }
        const gap = Math.max(from, start);
        assert.equal(got.gapAt, BigInt(gap));
        assert.deepEqual(
          got.records.map((r) => r.seqNum),
          Array.from({ length: gap - from }, (_, k) => BigInt(from + k)),
        );
      },
    ),
    { numRuns: 300 },
  );
});

test("a missing entry stops the continuation at the gap", () => {
  const es = entries(30, [10, 20]);
  const got = continueFrom([es[0], es[2]] as DecodedLogEntry[], 0n);
  assert.equal(got.records.length, 10);
  assert.equal(got.gapAt, 10n);
});

/** One batch of `count` records from `first`, its bodies naming the branch it was written on. */
function batchEntry(first: number, count: number, branch: string): DecodedLogEntry {
  return {
    streamId: "s",
    bucket: "b",
    key: "k",
    firstSeqNum: BigInt(first),
    records: Array.from({ length: count }, (_, j) => ({
      seqNum: BigInt(first + j),
      timestampMs: 0n,
      headers: [],
      body: Buffer.from(`${branch}${first + j}`),
    })),
    marks: NO_MARKS,
  };
}

test("property: a failed write whose seq_nums a later entry reuses stands for nothing", () => {
  fc.assert(
    fc.property(
      // Batches as the star sequenced them; some failed (their PUT landed, their void did not),
      // and the star went on from the failed batch's first seq_num.
      fc.array(fc.tuple(fc.integer({ min: 1, max: 4 }), fc.boolean()), {
        minLength: 1,
        maxLength: 12,
      }),
      (batches) => {
        const log: DecodedLogEntry[] = [];
        let tail = 0;
        batches.forEach(([count, failed], i) => {
          log.push(batchEntry(tail, count, failed ? `failed${i}:` : ""));
          if (!failed) tail += count;
        });
        // The last entry stands either way: nothing after it took its seq_nums.
        const standing = log.filter((_, i) => !batches[i]?.[1] || i === log.length - 1);
        assert.deepEqual(standingEntries(log), standing);
        const { records, gapAt } = continueFrom(log, 0n);
        assert.equal(gapAt, undefined);
        const text = (r: { body: Uint8Array }) => Buffer.from(r.body).toString();
        assert.deepEqual(
          records.map(text),
          standing.flatMap((e) => e.records.map(text)),
        );
      },
    ),
  );
});
