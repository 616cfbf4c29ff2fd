import assert from "node:assert/strict";
import { test } from "node:test";
import type { BatchSource, SourceBatch } from "../sessions/index.ts";
import { openEnded } from "./open-ended.ts";

const record = (seq: number) => ({
  seq_num: String(seq),
  timestamp_ms: "0",
  headers: [],
  body: Buffer.from(`r${seq}`),
});
const tail = { seq_num: "2", timestamp_ms: "0" };

test("past a closed stream's last batch, an S2 read waits at the tail until stopped", async () => {
  const batches: SourceBatch[] = [
    { records: [record(0)], tail },
    { records: [record(1)], tail, closed: true },
  ];
  const source: BatchSource = async function* () {
    yield* batches;
  };
  const stop = new AbortController();
  const it = openEnded(source)({ start: {}, clamp: false }, stop.signal)[Symbol.asyncIterator]();
  assert.deepEqual((await it.next()).value, batches[0]);
  const last = (await it.next()).value as SourceBatch;
  assert.deepEqual(last, { records: [record(1)], tail });
  assert.equal("closed" in last, false);
  assert.deepEqual((await it.next()).value, { records: [], tail }, "caught up");
  const pending = it.next();
  const raced = await Promise.race([pending, new Promise((r) => setImmediate(() => r("waiting")))]);
  assert.equal(raced, "waiting");
  stop.abort();
  assert.equal((await pending).done, true);
});
