import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { type ChunkRecord, encodeChunk } from "../../contract/codec/index.ts";
import { ChunkMemoryPool, freshMemory } from "./chunk-memory.ts";
import { ChunkFault } from "./faults.ts";
import { type PlanEntry, planEntry } from "./plan-entry.ts";
import { verifyChunk as verifyLent } from "./verify-chunk.ts";

const verifyChunk = (entry: PlanEntry, bytes: Buffer) => verifyLent(entry, freshMemory(bytes));

const recordsArb = fc
  .array(
    fc.record({
      body: fc.uint8Array({ maxLength: 16 }),
      headers: fc.array(
        fc.record({
          name: fc.uint8Array({ minLength: 1, maxLength: 4 }),
          value: fc.uint8Array({ maxLength: 4 }),
        }),
        { maxLength: 2 },
      ),
    }),
    { minLength: 1, maxLength: 8 },
  )
  .map((rs) => rs.map((r, i): ChunkRecord => ({ ...r, timestampMs: 1000n + BigInt(i) })));

function entryFor(first: bigint, records: ChunkRecord[]): { entry: PlanEntry; bytes: Buffer } {
  const c = encodeChunk(first, records);
  const entry = planEntry({
    url: "http://store.test/nova/chunk?X-Amz-Signature=abc",
    location: "url",
    footer_off: String(c.footerOffset),
    footer_len: c.footerLength,
    payload_bytes: String(c.payloadBytes),
    first_seq_num: first.toString(),
    min_timestamp_ms: c.minTimestampMs.toString(),
    max_timestamp_ms: c.maxTimestampMs.toString(),
  });
  return { entry, bytes: c.bytes };
}

const corrupt = (err: unknown) => err instanceof ChunkFault && err.reason === "corrupt";

test("a verified chunk yields any range of its records with their seq_nums and timestamps", () => {
  fc.assert(
    fc.property(
      recordsArb,
      fc.oneof(
        fc.bigInt({ min: 0n, max: 1n << 40n }),
        // seq_nums past 2^53, where the record's seq_num is computed as a bigint.
        fc.bigInt({ min: (1n << 53n) - 10n, max: (1n << 64n) - 9n }),
      ),
      fc.nat(),
      fc.nat(),
      (records, first, a, b) => {
        const { entry, bytes } = entryFor(first, records);
        const chunk = verifyChunk(entry, bytes);
        assert.equal(chunk.firstSeqNum, first);
        assert.equal(chunk.bytesHeld, bytes.length);
        assert.equal(chunk.count, records.length);
        const from = Math.min(a, b) % (records.length + 1);
        const to = from + (Math.max(a, b) % (records.length + 1 - from));
        const served = chunk.copyRecords(from, to);
        assert.ok(served);
        // The records view a copy: the chunk's own bytes may be lent again.
        bytes.fill(0);
        assert.deepEqual(
          Array.from({ length: to - from }, (_, k) => served.record(from + k)),
          records.slice(from, to).map((r, k) => ({
            seq_num: (first + BigInt(from + k)).toString(),
            timestamp_ms: r.timestampMs.toString(),
            body: Buffer.from(r.body),
            headers: r.headers.map((h) => ({
              name: Buffer.from(h.name),
              value: Buffer.from(h.value),
            })),
          })),
        );
        assert.deepEqual(
          [...chunk.timestamps],
          records.map((r) => r.timestampMs),
        );
      },
    ),
  );
});

test("a chunk whose memory was given back serves nothing; one in fresh memory always serves", () => {
  const records: ChunkRecord[] = [{ body: Buffer.from("hi"), headers: [], timestampMs: 1n }];
  const { entry, bytes } = entryFor(7n, records);
  const pool = new ChunkMemoryPool(1 << 20);
  const lent = pool.take(bytes.length);
  bytes.copy(lent.bytes);
  const chunk = verifyLent(entry, lent);
  assert.equal(chunk.copyRecords(0, 1)?.record(0).body.toString(), "hi");
  pool.give(lent);
  assert.equal(chunk.copyRecords(0, 1), undefined);
  // The memory now holds another chunk; the old one still serves nothing.
  const again = pool.take(bytes.length);
  assert.equal(again.bytes.buffer, lent.bytes.buffer);
  assert.equal(chunk.copyRecords(0, 1), undefined);
  assert.ok(verifyChunk(entry, bytes).copyRecords(0, 1));
});

test("any flipped bit anywhere in the object is refused as corrupt", () => {
  fc.assert(
    fc.property(recordsArb, fc.nat(), fc.integer({ min: 0, max: 7 }), (records, at, bit) => {
      const { entry, bytes } = entryFor(5n, records);
      const i = at % bytes.length;
      bytes[i] = (bytes[i] as number) ^ (1 << bit);
      assert.throws(() => verifyChunk(entry, bytes), corrupt);
    }),
  );
});

test("an object of another size, or another first seq_num, is refused as corrupt", () => {
  const records: ChunkRecord[] = [{ body: Buffer.from("hi"), headers: [], timestampMs: 1n }];
  const { entry, bytes } = entryFor(7n, records);
  assert.throws(() => verifyChunk(entry, bytes.subarray(1)), corrupt);
  assert.throws(() => verifyChunk(entry, Buffer.concat([bytes, Buffer.from([0])])), corrupt);
  assert.throws(() => verifyChunk({ ...entry, firstSeqNum: 8n }, bytes), corrupt);
  const moved = { ...entry, footerOff: entry.footerOff - 1, footerLen: entry.footerLen + 1 };
  assert.throws(() => verifyChunk(moved, bytes), corrupt);
});

test("plan entries: the cache key leaves out the presigned query string", () => {
  const base = {
    footer_off: "11",
    footer_len: 65,
    payload_bytes: "11",
    first_seq_num: "7",
    min_timestamp_ms: "1",
    max_timestamp_ms: "2",
  };
  const a = planEntry({ ...base, location: "url", url: "http://s.test/b/k?X-Amz-Date=1" });
  const b = planEntry({ ...base, location: "url", url: "http://s.test/b/k?X-Amz-Date=2" });
  assert.equal(a.cacheKey, b.cacheKey);
  const raw = planEntry({
    ...base,
    location: "object",
    object: { storage_bucket: "nova", object_key: "chunks/x" },
  });
  assert.deepEqual(raw.location, { bucket: "nova", key: "chunks/x" });
  assert.notEqual(raw.cacheKey, a.cacheKey);
  for (const bad of [
    { ...base, location: "url" as const, url: "ftp://s.test/x" },
    { ...base, location: "url" as const, url: "not a url" },
    { ...base },
    { ...base, location: "url" as const, url: "http://s/x", payload_bytes: "12" },
    { ...base, location: "url" as const, url: "http://s/x", footer_off: "99999999999999999999" },
  ]) {
    assert.throws(() => planEntry(bad), { name: "BadPlanError" });
  }
});
