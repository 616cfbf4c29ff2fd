import assert from "node:assert/strict";
import { test } from "node:test";
import type { Record__Output } from "../../../gen/nova/v1/Record.ts";
import type { HistoryEnd, HistorySource, PlanStart, ReadBatch } from "../../history/index.ts";
import { withCatchUp } from "./catch-up-source.ts";
import type { BatchSource, Cursor } from "./source.ts";

const rec = (seq: number): Record__Output => ({
  seq_num: String(seq),
  timestamp_ms: "0",
  body: Buffer.from(`r${seq}`),
  headers: [],
});
const tail = { seq_num: "9", timestamp_ms: "0" };

/** History that yields `seqs` as one batch and ends with `end`; records what it was asked. */
function history(seqs: number[], end: HistoryEnd) {
  const asked: PlanStart[] = [];
  const source: HistorySource = {
    async *read(_address, start): AsyncGenerator<ReadBatch, HistoryEnd, undefined> {
      asked.push(start);
      if (seqs.length > 0) yield { records: seqs.map(rec), tail };
      return end;
    },
  };
  return { source, asked };
}

/** A live source that yields one batch, records 7 and 8, and the cursor it was given. */
function live() {
  const cursors: Cursor[] = [];
  const source: BatchSource = async function* (cursor) {
    cursors.push(cursor);
    yield { records: [rec(7), rec(8)], tail };
  };
  return { source, cursors };
}

async function seqs(source: BatchSource, cursor: Cursor): Promise<string[]> {
  const out: string[] = [];
  for await (const b of source(cursor, new AbortController().signal)) {
    for (const r of b.records) out.push(r.seq_num);
  }
  return out;
}

const stream = { bucket: "b", key: "k" };

test("history first, then the live source from where history ended, unclamped", async () => {
  const h = history([3, 4, 5, 6], {
    planned: true,
    next: { seq_num: "7" },
    exhausted: false,
    tail: undefined,
    closed: false,
  });
  const l = live();
  const got = await seqs(withCatchUp(h.source, l.source, stream), {
    start: { seq_num: "3" },
    clamp: true,
  });
  assert.deepEqual(got, ["3", "4", "5", "6", "7", "8"]);
  assert.deepEqual(h.asked, [{ seq_num: "3" }]);
  assert.deepEqual(l.cursors, [{ start: { seq_num: "7" }, clamp: false }]);
});

test("no plan, or nothing read: the live source gets the session's own cursor", async () => {
  for (const end of [
    { planned: false, next: { seq_num: "3" }, exhausted: false, tail: undefined },
    { planned: true, next: { timestamp_ms: "5" }, exhausted: false, tail: undefined },
  ] as HistoryEnd[]) {
    const h = history([], end);
    const l = live();
    const cursor: Cursor = {
      start: "seq_num" in end.next ? end.next : { timestamp_ms: "5" },
      clamp: true,
    };
    await seqs(withCatchUp(h.source, l.source, stream), cursor);
    assert.deepEqual(l.cursors, [cursor]);
  }
});

test("a start from the tail has no history: straight to the live source", async () => {
  const h = history([1], {
    planned: true,
    next: { seq_num: "2" },
    exhausted: false,
    tail: undefined,
    closed: false,
  });
  const l = live();
  for (const start of [{}, { tail_offset: "3" }] as Cursor["start"][]) {
    await seqs(withCatchUp(h.source, l.source, stream), { start, clamp: false });
  }
  assert.deepEqual(h.asked, []);
  assert.equal(l.cursors.length, 2);
});
