// LogReader over the in-memory store: both kinds of read (every object, one stream's entries)
// pass over a torn newest object with one warning, and refuse a damaged older one UNAVAILABLE
// naming it, with an error line and a count.
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { test } from "node:test";
import { type Metadata, status } from "@grpc/grpc-js";
import pino from "pino";
import { encodeLogObject } from "../../contract/codec/index.ts";
import { findDetail } from "../../contract/proto/index.ts";
import { createMemoryStore } from "../../platform/objstore/index.ts";
import { logKey } from "../storage/keys.ts";
import { LogReader } from "./log-objects.ts";

/** A logger whose lines are kept, parsed. */
function capture() {
  const lines: { level: number; msg: string; [k: string]: unknown }[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()));
      done();
    },
  });
  return { log: pino({ level: "info" }, sink), lines };
}

const entry = (streamId: string, first: number) => ({
  streamId,
  bucket: "b",
  key: streamId,
  firstSeqNum: BigInt(first),
  records: [{ headers: [], body: Buffer.from(`${streamId}${first}`), timestampMs: 1n }],
});

/** Star "s1"'s log: objects 1 to 3 each hold stream a's next record and one of stream b's. */
async function storeWithLog() {
  const store = createMemoryStore();
  for (const n of [1, 2, 3]) {
    await store.put(logKey("s1", BigInt(n)), encodeLogObject([entry("a", n - 1), entry("b", n)]));
  }
  return store;
}

const flipByte = (bytes: Uint8Array) => {
  const out = Buffer.from(bytes);
  out[20] = (out[20] as number) ^ 0xff;
  return out;
};

test("a torn newest object is passed over, warned about and counted once however often read", async () => {
  const store = await storeWithLog();
  await store.put(logKey("s1", 4n), new Uint8Array(0));
  const { log, lines } = capture();
  const reader = new LogReader(store, 1, log);
  const all = await reader.readAll("s1");
  assert.deepEqual(
    all.decoded.map((o) => o.number),
    [1n, 2n, 3n],
  );
  assert.deepEqual(
    all.passedOver.map((o) => o.key),
    [logKey("s1", 4n)],
  );
  const entries = await reader.streamEntries("s1", "a");
  assert.deepEqual(
    entries.map((e) => e.firstSeqNum),
    [0n, 1n, 2n],
  );
  await reader.streamEntries("s1", "b");
  assert.deepEqual(reader.stats, { tornPassedOver: 1, damageErrors: 0 });
  const warnings = lines.filter((l) => l.level === 40);
  assert.equal(warnings.length, 1);
  assert.equal(warnings[0]?.key, logKey("s1", 4n));
  assert.match(warnings[0]?.msg ?? "", /torn log object passed over/);
});

test("a damaged object not among the newest fails every read UNAVAILABLE naming it, logged and counted", async () => {
  const store = await storeWithLog();
  const middle = logKey("s1", 2n);
  await store.put(middle, flipByte((await store.get(middle)) as Uint8Array));
  await store.put(logKey("s1", 4n), new Uint8Array(0));
  const { log, lines } = capture();
  const reader = new LogReader(store, 1, log);
  const refused = (err: { code: number; details: string; metadata: Metadata }) =>
    err.code === status.UNAVAILABLE &&
    findDetail(err.metadata, "LogDamaged")?.object_key === middle &&
    err.details.startsWith(`log object ${middle} is damaged (log object: crc mismatch)`) &&
    /retry/.test(err.details);
  await assert.rejects(reader.readAll("s1"), refused);
  // Stream b's entry in it is lost, and so may be one of any stream: every stream's read fails.
  await assert.rejects(reader.streamEntries("s1", "a"), refused);
  await assert.rejects(reader.streamEntries("s1", "unrelated"), refused);
  assert.deepEqual(reader.stats, { tornPassedOver: 0, damageErrors: 3 });
  const errors = lines.filter((l) => l.level === 50);
  assert.equal(errors.length, 3);
  assert.match(String(errors[0]?.damage), new RegExp(`log object ${middle} is damaged`));
});

test("with more PUTs in flight, more of the newest objects may be torn", async () => {
  const store = await storeWithLog();
  const second = logKey("s1", 2n);
  await store.put(second, flipByte((await store.get(second)) as Uint8Array));
  await store.put(logKey("s1", 3n), new Uint8Array(0));
  await assert.rejects(new LogReader(store, 1, pino({ level: "silent" })).readAll("s1"));
  const reader = new LogReader(store, 2, pino({ level: "silent" }));
  const entries = await reader.streamEntries("s1", "a");
  assert.deepEqual(
    entries.map((e) => e.firstSeqNum),
    [0n],
  );
  assert.equal(reader.stats.tornPassedOver, 2);
});

test("a gap is an UNAVAILABLE naming the stream and the record, logged and counted", () => {
  const { log, lines } = capture();
  const reader = new LogReader(createMemoryStore(), 1, log);
  const err = reader.gap("s1", "a", 7n);
  assert.equal(err.code, status.UNAVAILABLE);
  assert.match(err.details, /^stream a has no record 7 in its chunks or in star s1's log objects/);
  assert.deepEqual(findDetail(err.metadata, "LogDamaged"), {
    star_id: "s1",
    object_key: "",
    stream_id: "a",
    missing_seq_num: "7",
  });
  assert.equal(reader.stats.damageErrors, 1);
  assert.equal(lines.filter((l) => l.level === 50).length, 1);
});
