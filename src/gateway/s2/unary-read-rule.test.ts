import assert from "node:assert/strict";
import { test } from "node:test";
import { parseS2ReadQuery } from "./read-query.ts";
import { asksForNothing, emptyAtTail } from "./unary-read-rule.ts";

test("count=0 or bytes=0 asks for nothing; other limits and none do not", () => {
  for (const [query, nothing] of [
    [{ count: "0" }, true],
    [{ bytes: "0" }, true],
    [{ count: "0", bytes: "5" }, true],
    [{ count: "1" }, false],
    [{ bytes: "1" }, false],
    [{}, false],
  ] as const) {
    assert.equal(asksForNothing(parseS2ReadQuery(query)), nothing, JSON.stringify(query));
  }
});

test("an empty page is at the tail unless until may have cut it", () => {
  const cases: [Record<string, string>, number, bigint, boolean][] = [
    // A timestamp after the tail's (the tail stamped 50) is the tail, until or not.
    [{ timestamp: "51", until: "100" }, 0, 5n, true],
    [{ timestamp: "50", until: "100" }, 0, 5n, false],
    // Records came back: never.
    [{ seq_num: "0" }, 1, 5n, false],
    // Without until, an empty page started at the tail, however the start was given.
    [{ seq_num: "5" }, 0, 5n, true],
    [{ seq_num: "9", clamp: "true" }, 0, 5n, true],
    [{}, 0, 5n, true],
    [{ timestamp: "123" }, 0, 5n, true],
    // With until: only a start known to be the tail.
    [{ seq_num: "0", until: "10" }, 0, 5n, false],
    [{ seq_num: "5", until: "10" }, 0, 5n, true],
    [{ tail_offset: "0", until: "10" }, 0, 5n, true],
    [{ tail_offset: "2", until: "10" }, 0, 5n, false],
    [{ timestamp: "1", until: "10" }, 0, 5n, false],
    [{ timestamp: "1", until: "10" }, 0, 0n, true],
  ];
  for (const [query, records, tail, atTail] of cases) {
    assert.equal(
      emptyAtTail(parseS2ReadQuery(query), records, { seqNum: tail, timestampMs: 50n }),
      atTail,
      `${JSON.stringify(query)}, ${records} records, tail ${tail}`,
    );
  }
});
