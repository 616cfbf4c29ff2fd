import assert from "node:assert/strict";
import { test } from "node:test";
import { PageRule } from "../../contract/page-rule.ts";
import type { Record__Output } from "../../gen/nova/v1/Record.ts";
import { pageEndsAt } from "./page-end.ts";
import type { StarRead } from "./page-read.ts";

const record = (seq: number, size: number, ts = 100): Record__Output => ({
  seq_num: String(seq),
  timestamp_ms: String(ts),
  headers: [],
  body: Buffer.alloc(size),
});

/** A star holding `records` from seq 0; the Reads it was asked. */
function star(records: Record__Output[]): { read: StarRead; asked: [string, number][] } {
  const asked: [string, number][] = [];
  const read: StarRead = async (start, count) => {
    assert.ok("seq_num" in start, "a page's continuation starts at a seq_num");
    asked.push([start.seq_num, count]);
    const from = Number(start.seq_num);
    return { records: records.slice(from, from + count), tail: null, closed: false };
  };
  return { read, asked };
}

test("the page ends before a record that does not fit, asked for alone", async () => {
  const limits = new PageRule(10, 6);
  limits.take(5);
  const { read, asked } = star([record(0, 5), record(1, 4)]);
  assert.equal(await pageEndsAt(read, 1n, limits), true);
  assert.deepEqual(asked, [["1", 1]]);
});

test("a record that fits, one past the time bound, none, or an empty page leave the failure", async () => {
  const fitting = new PageRule(10, 10);
  fitting.take(5);
  assert.equal(await pageEndsAt(star([record(0, 5), record(1, 4)]).read, 1n, fitting), false);
  const timed = new PageRule(10, 10, 200n);
  timed.take(5);
  // The time bound ends the page as one Read's: past it, the record does not belong.
  assert.equal(await pageEndsAt(star([record(0, 5), record(1, 1, 300)]).read, 1n, timed), true);
  assert.equal(await pageEndsAt(star([record(0, 5)]).read, 1n, fitting), false);
  const empty = new PageRule(10, 1);
  const untouched = star([record(0, 5)]);
  assert.equal(await pageEndsAt(untouched.read, 0n, empty), false);
  assert.deepEqual(untouched.asked, [], "the first record of a page is always taken: no Read");
});

test("a record stamped before the timestamp start does not end the page", async () => {
  const limits = new PageRule(10, 6);
  limits.take(5);
  assert.equal(
    await pageEndsAt(star([record(0, 5), record(1, 4, 50)]).read, 1n, limits, 100n),
    false,
  );
});

test("the lone record's own failure is thrown: one Read meets it too", async () => {
  const limits = new PageRule(10, 6);
  limits.take(5);
  const failing: StarRead = async () => {
    throw new Error("corrupt chunk");
  };
  await assert.rejects(pageEndsAt(failing, 1n, limits), /corrupt chunk/);
});
