import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { appendRecord, int64Time, sequencedRecord, uint64 } from "./arbitraries.test-helper.ts";
import {
  appendAckToS2,
  appendRecordFromS2,
  readBatchToS2,
  sequencedRecordToS2,
  timeFromS2,
} from "./records.ts";

const novaRecord = sequencedRecord.map((r) => ({
  seq_num: r.seq_num,
  timestamp_ms: r.timestamp,
  headers: r.headers,
  body: r.body,
}));
const novaPosition = fc.record({ seq_num: uint64, timestamp_ms: int64Time });

test("a nova record keeps its seq_num, time, headers (in order) and body exactly", () => {
  fc.assert(
    fc.property(novaRecord, (r) => {
      assert.deepEqual(sequencedRecordToS2(r), {
        seq_num: r.seq_num,
        timestamp: r.timestamp_ms,
        headers: r.headers.map((h) => ({ name: h.name, value: h.value })),
        body: r.body,
      });
    }),
  );
});

test("an S2 record appended and read back through nova's shapes is the same record", () => {
  fc.assert(
    fc.property(appendRecord, uint64, int64Time, (r, seq, now) => {
      const nova = appendRecordFromS2(r, "records[0]");
      assert.equal(nova.timestamp_ms, r.timestamp);
      const stored = {
        seq_num: seq,
        timestamp_ms: nova.timestamp_ms ?? now,
        headers: nova.headers,
        body: nova.body,
      };
      const back = sequencedRecordToS2(stored);
      assert.deepEqual(back.body, r.body);
      assert.deepEqual(back.headers, r.headers);
    }),
  );
});

test("acks and batches carry positions exactly, the tail only when there is one", () => {
  fc.assert(
    fc.property(novaPosition, novaPosition, novaPosition, (start, end, tail) => {
      const ack = appendAckToS2({ start, end, tail });
      assert.deepEqual(ack.end, { seq_num: end.seq_num, timestamp: end.timestamp_ms });
      assert.deepEqual(ack.tail, { seq_num: tail.seq_num, timestamp: tail.timestamp_ms });
      assert.equal("tail" in readBatchToS2([], null), false);
      assert.deepEqual(readBatchToS2([], tail).tail, ack.tail);
    }),
  );
});

test("a time before 1970 has no S2 form: refused, never shown as another time", () => {
  assert.throws(
    () =>
      sequencedRecordToS2({ seq_num: "7", timestamp_ms: "-5", headers: [], body: Buffer.alloc(0) }),
    (err: { status: number; code: string; message: string }) =>
      err.status === 422 && err.code === "invalid" && err.message.includes("record 7"),
  );
});

test("an S2 time beyond int64 is refused with invalid, naming the field", () => {
  assert.equal(timeFromS2("9223372036854775807", "t"), "9223372036854775807");
  assert.throws(
    () => timeFromS2("9223372036854775808", "records[2].timestamp"),
    (err: { code: string; message: string }) =>
      err.code === "invalid" && err.message.startsWith("records[2].timestamp"),
  );
});

test("an empty header name in a data record is refused: it marks command records", () => {
  assert.throws(
    () =>
      appendRecordFromS2(
        { headers: [{ name: Buffer.alloc(0), value: Buffer.from("x") }], body: Buffer.alloc(0) },
        "records[1]",
      ),
    (err: { code: string; message: string }) =>
      err.code === "invalid" && err.message.startsWith("records[1].headers[0]"),
  );
});
