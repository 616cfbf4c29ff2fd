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

test("an empty page is S2's 416 as its start says: at or past the tail", () => {
  // The tail is seq_num 5, stamped 50 (0, stamped 0, for an empty stream).
  const cases: [Record<string, string>, number, bigint, boolean][] = [
    // Records came back: never.
    [{ seq_num: "0" }, 1, 5n, false],
    // A seq_num at or past the tail, given or clamped; one before it found nothing (trimmed).
    [{ seq_num: "5" }, 0, 5n, true],
    [{ seq_num: "9", clamp: "true" }, 0, 5n, true],
    [{ seq_num: "0" }, 0, 5n, false],
    [{ seq_num: "5", until: "10" }, 0, 5n, true],
    [{ seq_num: "0", until: "10" }, 0, 5n, false],
    [{ seq_num: "0" }, 0, 0n, true],
    // No start is tail_offset 0; an offset lands on the tail at 0, or on an empty stream.
    [{}, 0, 5n, true],
    [{ tail_offset: "0", until: "10" }, 0, 5n, true],
    [{ tail_offset: "2" }, 0, 5n, false],
    [{ tail_offset: "9" }, 0, 5n, false],
    [{ tail_offset: "2" }, 0, 0n, true],
    // A timestamp after the tail's, until or not; one at or before it resolves to a record or
    // the tail, which is no 416 (an empty stream is stamped 0).
    [{ timestamp: "51" }, 0, 5n, true],
    [{ timestamp: "51", until: "100" }, 0, 5n, true],
    [{ timestamp: "50", until: "100" }, 0, 5n, false],
    [{ timestamp: "1", until: "10" }, 0, 5n, false],
    [{ timestamp: "0" }, 0, 0n, false],
    [{ timestamp: "1" }, 0, 0n, true],
  ];
  for (const [query, records, tail, atTail] of cases) {
    const stamped = tail === 0n ? 0n : 50n;
    assert.equal(
      emptyAtTail(parseS2ReadQuery(query), records, { seqNum: tail, timestampMs: stamped }),
      atTail,
      `${JSON.stringify(query)}, ${records} records, tail ${tail}`,
    );
  }
});
