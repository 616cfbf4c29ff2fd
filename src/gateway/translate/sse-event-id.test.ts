import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { assertHttpError } from "../errors/assert-http-error.test-helper.ts";
import { badQuery } from "../errors/index.ts";
import { UINT64 } from "./integers.ts";
import { type EventId, formatEventId, parseEventId, resumeEventId } from "./sse-event-id.ts";

const uint64 = fc.bigInt({ min: 0n, max: UINT64.max });
const eventId = fc.record({
  seq_num: fc.bigInt({ min: 0n, max: UINT64.max - 1n }),
  count: uint64,
  bytes: uint64,
});

test("an event id parses back to what was formatted", () => {
  fc.assert(
    fc.property(eventId, (id) => {
      assert.deepEqual(parseEventId(formatEventId(id), "f", badQuery), { ...id });
    }),
  );
});

test("a parsed id formats to the same text, leading zeros aside", () => {
  fc.assert(
    fc.property(
      fc.array(fc.stringMatching(/^[0-9]{1,19}$/), { minLength: 3, maxLength: 3 }),
      (p) => {
        const text = p.join(",");
        const id = parseEventId(text, "f", badQuery);
        assert.equal(formatEventId(id), p.map((s) => BigInt(s).toString()).join(","));
      },
    ),
  );
});

test("anything else is refused with the field named", () => {
  const bad = [
    "",
    "1",
    "1,2",
    "1,2,3,4",
    "1,2,",
    " 1,2,3",
    "1, 2,3",
    "-1,2,3",
    "+1,2,3",
    "1.0,2,3",
    "0x1,2,3",
    "a,b,c",
    `${UINT64.max + 1n},0,0`,
    `0,${UINT64.max + 1n},0`,
    `0,0,${UINT64.max + 1n}`,
    `${UINT64.max},0,0`,
    "123456789012345678901,0,0",
  ];
  for (const text of bad) {
    assertHttpError(() => parseEventId(text, "last_event_id", badQuery), {
      status: 400,
      code: "bad_query",
      field: "last_event_id",
    });
  }
  fc.assert(
    fc.property(fc.string(), (text) => {
      fc.pre(!/^[0-9]{1,20},[0-9]{1,20},[0-9]{1,20}$/.test(text));
      assertHttpError(() => parseEventId(text, "f", badQuery), { status: 400, code: "bad_query" });
    }),
  );
});

test("the header wins over the query; empty means none", () => {
  const id: EventId = { seq_num: 5n, count: 6n, bytes: 7n };
  assert.deepEqual(resumeEventId("5,6,7", { last_event_id: "1,1,1" }), id);
  assert.deepEqual(resumeEventId(undefined, { last_event_id: "5,6,7" }), id);
  assert.deepEqual(resumeEventId("", { last_event_id: "5,6,7" }), id);
  assert.equal(resumeEventId(undefined, {}), undefined);
  assert.equal(resumeEventId("", { last_event_id: "" }), undefined);
  assertHttpError(() => resumeEventId("x", {}), {
    status: 400,
    code: "bad_header",
    field: "last-event-id",
  });
  assertHttpError(() => resumeEventId(undefined, { last_event_id: ["1,1,1", "2,2,2"] }), {
    status: 400,
    code: "bad_query",
    field: "last_event_id",
  });
  assertHttpError(() => resumeEventId(["1,1,1", "2,2,2"], {}), {
    status: 400,
    code: "bad_header",
  });
});
