import assert from "node:assert/strict";
import { test } from "node:test";
import { parseS2ReadQuery } from "./read-query.ts";
import { sessionStartRefusal, startNeedsTail } from "./session-start-rule.ts";

// The tail is seq_num 5, stamped 50.
const TAIL = { seq_num: "5", timestamp_ms: "50" };

test("a session is refused as S2 refuses it: after the tail, or at it when it may not follow", () => {
  const cases: [Record<string, string>, boolean][] = [
    // Unbounded sessions follow from the tail; past it they are refused unless clamped.
    [{ seq_num: "5" }, false],
    [{ seq_num: "6" }, true],
    [{ seq_num: "6", clamp: "true" }, false],
    [{}, false],
    [{ timestamp: "50" }, false],
    [{ timestamp: "51" }, true],
    [{ timestamp: "51", clamp: "true" }, false],
    // Bounded without wait: at the tail (given, clamped there, tail_offset 0) is refused.
    [{ seq_num: "4", count: "5" }, false],
    [{ seq_num: "5", count: "5" }, true],
    [{ seq_num: "5", count: "0" }, true],
    [{ seq_num: "5", bytes: "0" }, true],
    [{ seq_num: "5", until: "99" }, true],
    [{ seq_num: "9", clamp: "true", count: "1" }, true],
    [{ count: "1" }, true],
    [{ tail_offset: "1", count: "1" }, false],
    [{ timestamp: "51", clamp: "true", count: "1" }, true],
    // A timestamp at or before the tail's resolves to a record or the tail: never refused.
    [{ timestamp: "50", count: "1" }, false],
    // With wait it may follow: at the tail it waits.
    [{ seq_num: "5", count: "5", wait: "1" }, false],
    [{ seq_num: "6", count: "5", wait: "1" }, true],
  ];
  for (const [query, refused] of cases) {
    const q = parseS2ReadQuery(query);
    assert.equal(sessionStartRefusal(q, TAIL) !== undefined, refused, JSON.stringify(query));
    // Whatever the rule refuses, the gateway asks for the tail first, but a seq_num past the
    // tail unbounded: the star's Subscribe refuses that itself.
    const starRefuses = "seq_num" in q.query.start && startNeedsTail(q) === false;
    if (refused && !starRefuses) assert.equal(startNeedsTail(q), true, JSON.stringify(query));
  }
});

test("an empty stream's tail is 0: a bounded session there is refused, tail_offset too", () => {
  const empty = { seq_num: "0", timestamp_ms: "0" };
  assert.equal(
    sessionStartRefusal(parseS2ReadQuery({ tail_offset: "3", count: "1" }), empty) !== undefined,
    true,
  );
  assert.equal(
    sessionStartRefusal(parseS2ReadQuery({ tail_offset: "3" }), empty) !== undefined,
    false,
  );
  assert.equal(sessionStartRefusal(parseS2ReadQuery({ count: "1" }), null) !== undefined, true);
});

test("the tail is asked for only where the rule may refuse: timestamp starts and bounded reads", () => {
  for (const [query, needs] of [
    [{}, false],
    [{ seq_num: "3" }, false],
    [{ seq_num: "3", count: "2", wait: "5" }, false],
    [{ timestamp: "3", clamp: "true" }, false],
    [{ timestamp: "3" }, true],
    [{ seq_num: "3", count: "2" }, true],
    [{ seq_num: "3", until: "9" }, true],
  ] as const) {
    assert.equal(startNeedsTail(parseS2ReadQuery(query)), needs, JSON.stringify(query));
  }
});
