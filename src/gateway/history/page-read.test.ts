import assert from "node:assert/strict";
import { test } from "node:test";
import { trimPointShown } from "./page-read.ts";

const answer = (...seqs: number[]) => ({
  records: seqs.map((s) => ({
    seq_num: String(s),
    timestamp_ms: "0",
    headers: [],
    body: Buffer.alloc(0),
  })),
  tail: null,
  closed: false,
});

test("a Read answering from past where it was asked shows the trim point", () => {
  assert.equal(trimPointShown({ seq_num: "3" }, answer(6, 7)), 6n);
});

test("an answer from where it was asked, an empty one, or a timestamp start shows none", () => {
  assert.equal(trimPointShown({ seq_num: "3" }, answer(3, 4)), undefined);
  assert.equal(trimPointShown({ seq_num: "3" }, answer()), undefined);
  assert.equal(trimPointShown({ timestamp_ms: "3" }, answer(6)), undefined);
});
